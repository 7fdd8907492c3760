#include "obs/progress.h"

#include <cmath>
#include <cstdio>

#include "common/json.h"

namespace awc::obs {
namespace {

std::string Bytes(double b) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (b >= 1000 && u < 5) {
    b /= 1000;
    ++u;
  }
  char buf[32];
  snprintf(buf, sizeof buf, u == 0 || b >= 10 ? "%.0f %s" : "%.1f %s", b,
           kUnits[u]);
  return buf;
}

std::string Duration(double secs) {
  int64_t s = static_cast<int64_t>(std::ceil(std::max(0.0, secs)));
  char buf[32];
  if (s < 60) {
    snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    snprintf(buf, sizeof buf, "%lldm", static_cast<long long>((s + 59) / 60));
  } else {
    snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
             static_cast<long long>(s % 3600 / 60));
  }
  return buf;
}

// Fraction done, from the bytes when both are known, else the objects;
// negative when neither total is known.
double Done(const JobProgress& p) {
  if (p.bytes_total > 0) {
    return std::min(
        1.0, static_cast<double>(p.bytes) / static_cast<double>(p.bytes_total));
  }
  if (p.objects_total > 0) {
    return std::min(1.0, static_cast<double>(p.objects) /
                             static_cast<double>(p.objects_total));
  }
  return p.bytes_total == 0 || p.objects_total == 0 ? 1.0 : -1.0;
}

double Rate(const JobProgress& p, double elapsed) {
  return elapsed > 0 ? static_cast<double>(p.bytes) / elapsed : 0;
}

// Seconds left at the average rate so far; negative when not known.
double Eta(const JobProgress& p, double elapsed) {
  double done = Done(p);
  if (done <= 0 || elapsed <= 0) return -1;
  return elapsed * (1 - done) / done;
}

}  // namespace

std::string ProgressLine(const JobProgress& p, double elapsed_secs) {
  std::string rate = Bytes(Rate(p, elapsed_secs)) + "/s";
  double done = Done(p);
  if (done < 0) {
    return Bytes(static_cast<double>(p.bytes)) + ", " +
           std::to_string(p.objects) + " objects, " + rate;
  }
  std::string of = p.bytes_total >= 0
                       ? Bytes(static_cast<double>(p.bytes)) + " of " +
                             Bytes(static_cast<double>(p.bytes_total))
                       : std::to_string(p.objects) + " of " +
                             std::to_string(p.objects_total) + " objects";
  std::string out =
      std::to_string(static_cast<int>(done * 100)) + "% " + of + ", " + rate;
  double eta = Eta(p, elapsed_secs);
  if (eta >= 0 && done < 1) out += ", eta " + Duration(eta);
  return out;
}

std::string ProgressJson(const JobProgress& p, double elapsed_secs) {
  JsonObject o;
  o.Int("objects", p.objects);
  if (p.objects_total >= 0) {
    o.Int("objects_total", p.objects_total);
  } else {
    o.Null("objects_total");
  }
  o.Int("bytes", p.bytes);
  if (p.bytes_total >= 0) {
    o.Int("bytes_total", p.bytes_total);
  } else {
    o.Null("bytes_total");
  }
  o.Num("bytes_per_sec", std::round(Rate(p, elapsed_secs)));
  double eta = Eta(p, elapsed_secs);
  if (eta >= 0) {
    o.Num("eta_secs", std::round(eta));
  } else {
    o.Null("eta_secs");
  }
  o.Str("line", ProgressLine(p, elapsed_secs));
  return o.Dump();
}

}  // namespace awc::obs
