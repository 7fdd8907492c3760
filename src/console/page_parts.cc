// Pieces the page renderers share.
#include <cstdlib>

#include "common/json.h"
#include "console/pages.h"

namespace awc::console {

std::string JobLink(int64_t id) {
  return Link("/jobs/" + std::to_string(id), "#" + std::to_string(id));
}

std::string JsonBlock(std::string_view json) {
  if (json.empty()) return None();
  std::string text(json);
  Result<JsonPtr> doc = ParseJson(json, /*allow_nul=*/true);
  if (doc.ok()) {
    char* pretty = json_dumps(
        doc->get(), JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    if (pretty != nullptr) {
      text = pretty;
      free(pretty);
    }
  }
  return "<pre>" + Escape(text) + "</pre>";
}

std::string FilterForm(const PageContext& ctx,
                       const std::vector<Field>& fields) {
  std::string out = "<form class=\"filter\" method=\"get\" action=\"" +
                    Escape(ctx.path) + "\">";
  for (const Field& f : fields) {
    out += "<label>" + Escape(f.label);
    if (f.choices.empty()) {
      out += "<input name=\"" + Escape(f.name) + "\" value=\"" +
             Escape(f.value) + "\" placeholder=\"any\">";
    } else {
      out += "<select name=\"" + Escape(f.name) + "\">";
      for (const std::string& c : f.choices) {
        out += "<option value=\"" + Escape(c) + "\"" +
               (c == f.value ? " selected" : "") + ">" +
               Escape(c.empty() ? "any" : c) + "</option>";
      }
      out += "</select>";
    }
    out += "</label>";
  }
  if (ctx.refresh > 0) {
    out += "<input type=\"hidden\" name=\"refresh\" value=\"" +
           std::to_string(ctx.refresh) + "\">";
  }
  out += "<button type=\"submit\">Filter</button> " +
         Link(Url(ctx.path, {}), "clear") + "</form>\n";
  return out;
}

std::string Record(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string out = "<dl class=\"rec\">\n";
  for (const auto& [key, value] : kv) {
    out += "<dt>" + Escape(key) + "</dt><dd>" + value + "</dd>\n";
  }
  return out + "</dl>\n";
}

}  // namespace awc::console
