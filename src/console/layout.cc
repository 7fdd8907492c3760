// The frame of every page: head, style sheet, navigation, database line.
#include <string>

#include "console/pages.h"
#include "console/relative_time.h"

namespace awc::console {
namespace {

// Inline, so the page needs nothing but itself (the Content-Security-Policy
// allows inline styles and nothing else). Dense tables, states in colour.
constexpr const char* kStyle = R"css(
:root{--fg:#1d2125;--mute:#6b7280;--line:#e3e6ea;--bg:#fff;--head:#f5f6f8;
--link:#0b5cad;--ok:#1a7f37;--okb:#e6f4ea;--bad:#b42318;--badb:#fde8e7;
--warn:#9a5b00;--warnb:#fff3d6;--run:#8a4b00;--runb:#ffedcc;--wait:#1f5fae;
--waitb:#e5efff;--off:#555;--offb:#eceef1}
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#20252b;color:#dfe3e8;padding:6px 16px;display:flex;
flex-wrap:wrap;align-items:center;gap:4px 18px}
header a{color:#dfe3e8;text-decoration:none;padding:2px 6px;border-radius:3px}
header a:hover{background:#38404a}
header a.on{background:#4a5562;color:#fff}
header .brand{font-weight:700;color:#fff;margin-right:6px}
header .db{margin-left:auto;font-size:12px;color:#aab3bd}
header .db a{padding:0 3px}
main{padding:10px 16px 40px;max-width:1600px}
h1{font-size:18px;margin:6px 0 10px}
h2{font-size:14px;margin:18px 0 6px;color:#374151}
section.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,
1fr));gap:0 28px}
table{border-collapse:collapse;width:100%;margin:0 0 4px}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;
vertical-align:top;white-space:nowrap}
td.wrap,th.wrap{white-space:normal;word-break:break-word}
th{background:var(--head);font-weight:600;font-size:12px;color:#4b5563}
tbody tr:hover{background:#f9fafb}
.n{text-align:right;font-variant-numeric:tabular-nums}
a{color:var(--link)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:12px}
pre{background:#f6f8fa;border:1px solid var(--line);padding:8px;margin:0;
overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-word}
.st{display:inline-block;padding:0 6px;border-radius:9px;font-size:11px;
font-weight:600;letter-spacing:.02em;background:var(--offb);color:var(--off)}
.st-ok{background:var(--okb);color:var(--ok)}
.st-bad{background:var(--badb);color:var(--bad)}
.st-warn{background:var(--warnb);color:var(--warn)}
.st-run{background:var(--runb);color:var(--run)}
.st-wait{background:var(--waitb);color:var(--wait)}
.st-off{background:var(--offb);color:var(--off)}
.none{color:var(--mute)}
.zero{color:#c0c5cc}
.err{color:var(--bad)}
.note{color:var(--mute);font-size:12px;margin:4px 0}
time{border-bottom:1px dotted #b8bec6}
dl.rec{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:0}
dl.rec dt{color:var(--mute)}
dl.rec dd{margin:0;word-break:break-word}
form.filter{display:flex;flex-wrap:wrap;gap:6px 12px;align-items:end;
margin:0 0 10px}
form.filter label{display:flex;flex-direction:column;font-size:11px;
color:var(--mute)}
form.filter input,form.filter select{font:inherit;padding:2px 4px;
min-width:140px}
nav.pages{margin:8px 0;display:flex;gap:14px}
.banner{border:1px solid #f3b8b3;background:var(--badb);color:var(--bad);
padding:10px 14px;border-radius:4px;max-width:900px}
.banner p{margin:6px 0 0;color:var(--fg)}
)css";

struct NavItem {
  const char* path;
  const char* label;
};
constexpr NavItem kNav[] = {
    {"/", "Overview"},           {"/jobs", "Jobs"}, {"/dead", "Dead letters"},
    {"/snapshots", "Snapshots"}, {"/gc", "GC"},     {"/audit", "Audit"},
};

UrlArgs WithRefresh(const UrlArgs& args, int refresh) {
  UrlArgs out;
  for (const auto& a : args) {
    if (a.first != "refresh") out.push_back(a);
  }
  if (refresh > 0) out.emplace_back("refresh", std::to_string(refresh));
  return out;
}

std::string RefreshLinks(const PageContext& ctx) {
  std::string out = "auto-refresh:";
  static const int kChoices[] = {0, 10, 60};
  for (int secs : kChoices) {
    std::string label = secs == 0 ? "off" : std::to_string(secs) + " s";
    out += " ";
    if (secs == ctx.refresh) {
      out += "<b>" + Escape(label) + "</b>";
    } else {
      out += Link(Url(ctx.path, WithRefresh(ctx.args, secs)), label);
    }
  }
  return out;
}

}  // namespace

std::string Layout(const PageContext& ctx, std::string_view active,
                   std::string_view title, const Clock* clock,
                   std::string_view body) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n";
  if (ctx.refresh > 0) {
    out += "<meta http-equiv=\"refresh\" content=\"" +
           std::to_string(ctx.refresh) + "\">\n";
  }
  out += "<title>" + Escape(title) + " \xC2\xB7 awc console</title>\n<style>" +
         kStyle + "</style>\n</head>\n<body>\n<header>\n";
  out += "<span class=\"brand\">awc console</span>\n<nav>";
  for (const NavItem& item : kNav) {
    UrlArgs args;
    if (ctx.refresh > 0)
      args.emplace_back("refresh", std::to_string(ctx.refresh));
    std::string url = Url(item.path, args);
    out += std::string("<a href=\"") + Escape(url) + "\"" +
           (active == item.path ? " class=\"on\"" : "") + ">" +
           Escape(item.label) + "</a>";
  }
  out += "</nav>\n<span class=\"db\">" + Escape(ctx.target) +
         " \xC2\xB7 read-only";
  if (clock != nullptr) {
    out += " \xC2\xB7 database time <time datetime=\"" +
           Escape(clock->now_iso) + "\">" + Escape(AbsoluteUtc(clock->now)) +
           "</time>";
  }
  out += " \xC2\xB7 " + RefreshLinks(ctx) + "</span>\n</header>\n<main>\n";
  out += "<h1>" + Escape(title) + "</h1>\n";
  out += body;
  out += "</main>\n</body>\n</html>\n";
  return out;
}

std::string RenderError(const PageContext& ctx, std::string_view title,
                        std::string_view detail, int retry_secs) {
  PageContext c = ctx;
  if (retry_secs > 0) c.refresh = retry_secs;
  std::string body = "<div class=\"banner\" role=\"alert\"><strong>" +
                     Escape(title) + "</strong><p>" + Escape(detail) + "</p>";
  if (retry_secs > 0) {
    body += "<p>This page tries again every " + std::to_string(retry_secs) +
            " seconds.</p>";
  }
  body += "</div>\n";
  return Layout(c, "", title, nullptr, body);
}

}  // namespace awc::console
