#include "obs/process_metrics.h"

#include <unistd.h>

#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace awc::obs {
namespace {

std::optional<double> ParseNumber(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return v;
}

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' &&
           text[i] != '\n') {
      ++i;
    }
    if (i > start) out.push_back(text.substr(start, i - start));
    if (i < text.size() && text[i] == '\n') break;
  }
  return out;
}

// The line of `text` that starts with `prefix`, without the prefix.
std::optional<std::string_view> LineAfter(std::string_view text,
                                          std::string_view prefix) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (line.starts_with(prefix)) return line.substr(prefix.size());
    pos = end + 1;
  }
  return std::nullopt;
}

// /proc/<pid>/stat: the fields after the command name, which is in
// parentheses and may hold spaces and parentheses itself. Field n of
// proc(5) is at index n - 3.
void ReadStat(ProcReading* out, const ProcSource& src, double ticks,
              double page) {
  Result<std::string> stat = src.env->ReadFile(src.self + "/stat");
  if (!stat.ok()) return;
  size_t close = stat->rfind(')');
  if (close == std::string::npos) return;
  std::vector<std::string_view> f =
      Words(std::string_view(*stat).substr(close + 1));
  if (f.size() < 22) return;
  std::optional<double> utime = ParseNumber(f[14 - 3]);
  std::optional<double> stime = ParseNumber(f[15 - 3]);
  std::optional<double> start = ParseNumber(f[22 - 3]);
  std::optional<double> vsize = ParseNumber(f[23 - 3]);
  std::optional<double> rss = ParseNumber(f[24 - 3]);
  if (utime && stime) {
    out->Set(MetricId::kProcessCpuSeconds, (*utime + *stime) / ticks);
  }
  if (rss) out->Set(MetricId::kProcessResidentMemory, *rss * page);
  if (vsize) out->Set(MetricId::kProcessVirtualMemory, *vsize);
  if (!start) return;
  double boot = src.env->NowWall() - src.env->NowBoot();
  out->Set(MetricId::kProcessStartTime, boot + *start / ticks);
}

void ReadFds(ProcReading* out, const ProcSource& src) {
  Result<std::vector<std::string>> fds =
      src.env->ListDir(src.self + "/fd", Env::Symlinks::kFollow);
  if (fds.ok()) {
    out->Set(MetricId::kProcessOpenFds, static_cast<double>(fds->size()));
  }
  Result<std::string> limits = src.env->ReadFile(src.self + "/limits");
  if (!limits.ok()) return;
  std::optional<std::string_view> line = LineAfter(*limits, "Max open files");
  if (!line) return;
  std::vector<std::string_view> w = Words(*line);
  std::optional<double> soft = w.empty() ? std::nullopt : ParseNumber(w[0]);
  if (!soft) return;  // "unlimited"
  out->Set(MetricId::kProcessMaxFds, *soft);
}

}  // namespace

ProcReading ReadProcess(const ProcSource& source) {
  double ticks = static_cast<double>(
      source.clock_ticks > 0 ? source.clock_ticks : sysconf(_SC_CLK_TCK));
  double page = static_cast<double>(
      source.page_size > 0 ? source.page_size : sysconf(_SC_PAGESIZE));
  if (ticks <= 0) ticks = 100;
  ProcReading out;
  ReadStat(&out, source, ticks, page);
  ReadFds(&out, source);
  return out;
}

void ProcessSamples(const ScrapeInput& in, const MetricFamily& f,
                    ScrapeSamples* out) {
  if (in.proc == nullptr) return;
  if (std::optional<double> v = in.proc->Get(f.id)) out->push_back({{}, *v});
}

}  // namespace awc::obs
