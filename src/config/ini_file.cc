#include "config/ini_file.h"

#include <map>
#include <memory>
#include <string_view>
#include <utility>

#include "common/env.h"
#include "common/redact.h"
#include "config/setting_spec.h"

namespace awc::config {
namespace {

constexpr size_t kMaxIniBytes = 1024 * 1024;

bool IsKnownSection(std::string_view section) {
  for (const Spec& spec : Specs()) {
    if (section == spec.section) return true;
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// `value` without an inline comment: from a ';' that follows a blank.
std::string_view WithoutComment(std::string_view value) {
  for (size_t i = 1; i < value.size(); ++i) {
    if (value[i] == ';' && (value[i - 1] == ' ' || value[i - 1] == '\t')) {
      return Trim(value.substr(0, i));
    }
  }
  return value;
}

constexpr std::string_view kUrlHint =
    " (this looks like a URL: the setting takes the path of a file holding "
    "it)";

// "scheme://...": the scheme a letter, then letters, digits, '+', '-' or
// '.' (RFC 3986).
bool LooksLikeUrl(std::string_view value) {
  size_t end = value.find("://");
  if (end == std::string_view::npos || end == 0) return false;
  for (size_t i = 0; i < end; ++i) {
    char c = value[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool other = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    if (!letter && (i == 0 || !other)) return false;
  }
  return true;
}

// How the errors of ReadSecretFile() show `path`, which may be the secret
// itself, set where the path of its file belongs: a URL quoted with its
// credentials masked, an absolute or ./ path quoted as it is, anything else
// not at all.
std::string ShownSecretPath(const std::string& path) {
  if (LooksLikeUrl(path)) {
    std::string scheme = path.substr(0, path.find("://") + 3);
    std::string masked = RedactConnInfo(path);
    if (!masked.starts_with(scheme)) masked = scheme + std::string(kRedacted);
    return "\"" + EscapeControlBytes(masked) + "\"";
  }
  if (path.starts_with("/") || path.starts_with("./") ||
      path.starts_with("../")) {
    return "\"" + EscapeControlBytes(path) + "\"";
  }
  return "the file it names (not shown: not an absolute or ./ path, it may be "
         "the secret itself)";
}

// Applies the file's values, line by line; the first error stops it.
class IniParser {
 public:
  IniParser(Settings* settings, std::vector<std::string>* sources,
            std::string path)
      : settings_(settings),
        sources_(sources),
        path_(std::move(path)),
        form_(Specs().size(), 0) {}

  // An error for line `number` of the file, or OK.
  Status Line(int number, std::string_view line) {
    if (line.find('\0') != std::string_view::npos) {
      return Status::InvalidArgument("NUL byte in the line");
    }
    line = Trim(line);
    if (line.empty() || line.front() == ';' || line.front() == '#') {
      return Status::OK();
    }
    if (line.front() == '[') return Section(line);
    size_t sep = line.find_first_of("=:");
    if (sep == std::string_view::npos) {
      return Status::InvalidArgument("syntax error");
    }
    std::string key(Trim(line.substr(0, sep)));
    if (key.empty()) return Status::InvalidArgument("syntax error");
    std::string value(WithoutComment(Trim(line.substr(sep + 1))));
    return Key(number, key, value);
  }

 private:
  // "[name]", then nothing but a comment.
  Status Section(std::string_view line) {
    size_t close = line.find(']');
    if (close == std::string_view::npos) {
      return Status::InvalidArgument("syntax error");
    }
    std::string_view rest = Trim(line.substr(close + 1));
    if (!rest.empty() && rest.front() != ';' && rest.front() != '#') {
      return Status::InvalidArgument("syntax error");
    }
    section_ = std::string(line.substr(1, close - 1));
    if (!IsKnownSection(section_)) {
      return Status::InvalidArgument("unknown section [" + section_ + "]");
    }
    return Status::OK();
  }

  Status Key(int number, const std::string& key, const std::string& value) {
    if (section_.empty()) {
      return Status::InvalidArgument("key \"" + key +
                                     "\" is outside a [section]");
    }
    auto [seen, fresh] = lines_.try_emplace({section_, key}, number);
    if (!fresh) {
      return Status::InvalidArgument(
          "duplicate key \"" + key + "\" in section [" + section_ +
          "] (first set on line " + std::to_string(seen->second) + ")");
    }
    const std::string where = "[" + section_ + "] " + key;
    for (size_t n = 0; n < Specs().size(); ++n) {
      const Spec& spec = Specs()[n];
      if (section_ != spec.section) continue;
      char form = 'v';
      if (spec.file_variant && key == std::string(spec.key) + "_file") {
        form = 'f';
      } else if (key != spec.key) {
        continue;
      }
      if (form_[n] != 0 && form_[n] != form) {
        return Status::InvalidArgument(where + ": set " + spec.key + " or " +
                                       spec.key + "_file, not both");
      }
      form_[n] = form;
      std::string text = value;
      if (form == 'f') {
        Result<std::string> r = ReadSecretFile(text);
        if (!r.ok()) return r.status().WithContext(where);
        text = *r;
      }
      Status s = Apply(spec, text, settings_);
      if (!s.ok()) {
        return s.WithContext(where + " (" + std::string(spec.env) + ")");
      }
      (*sources_)[n] = "file " + path_;
      return Status::OK();
    }
    return Status::InvalidArgument("unknown key \"" + key + "\" in section [" +
                                   section_ + "]");
  }

  Settings* settings_;
  std::vector<std::string>* sources_;
  const std::string path_;
  std::string section_;  // the current [section], "" before the first
  std::map<std::pair<std::string, std::string>, int> lines_;  // key -> line
  std::vector<char> form_;  // per spec: 0, 'v' (key) or 'f' (key_file)
};

}  // namespace

Result<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes) {
  // A regular file only (Env refuses the rest without blocking on a FIFO),
  // and no more than it may hold: /dev/zero would grow memory for ever.
  Result<std::unique_ptr<SequentialFile>> file =
      Env::Default()->NewSequentialFile(path, Env::Symlinks::kFollow);
  if (!file.ok()) return Status::InvalidArgument(file.status().message());
  std::string out(max_bytes + 1, '\0');
  Result<size_t> n = (*file)->Read(out.data(), out.size());
  if (!n.ok()) return Status::InvalidArgument(n.status().message());
  if (*n > max_bytes) {
    return Status::InvalidArgument("\"" + path + "\" is larger than " +
                                   std::to_string(max_bytes) + " bytes");
  }
  out.resize(*n);
  return out;
}

Result<std::string> ReadSecretFile(const std::string& path) {
  Result<std::string> v = ReadBoundedFile(path, kMaxSecretBytes);
  if (!v.ok()) {
    // The messages quote the path: the value may be the secret itself.
    std::string message = v.status().message();
    const std::string quoted = "\"" + path + "\"";
    const std::string shown = ShownSecretPath(path);
    for (size_t at = message.find(quoted); at != std::string::npos;
         at = message.find(quoted, at + shown.size())) {
      message.replace(at, quoted.size(), shown);
    }
    if (LooksLikeUrl(path)) message += kUrlHint;
    return Status::InvalidArgument(message);
  }
  while (!v->empty() && (v->back() == '\n' || v->back() == '\r')) {
    v->pop_back();
  }
  return v;
}

Status LoadIni(const std::string& path, Settings* s,
               std::vector<std::string>* sources) {
  Result<std::string> text = ReadBoundedFile(path, kMaxIniBytes);
  // The errors quote the file's name and its keys: one line each.
  if (!text.ok()) {
    return Status::InvalidArgument("cannot read configuration file: " +
                                   EscapeControlBytes(text.status().message()));
  }
  std::string_view rest = *text;
  if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);  // a BOM
  IniParser parser(s, sources, path);
  for (int number = 1; !rest.empty(); ++number) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    Status st = parser.Line(number, line);
    if (!st.ok()) {
      return Status::InvalidArgument(EscapeControlBytes(
          path + ":" + std::to_string(number) + ": " + st.message()));
    }
  }
  return Status::OK();
}

}  // namespace awc::config
