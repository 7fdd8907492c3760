// The `hash-files` subcommand of awc-bench-storage (storage_bench_main.cc).
//
//   hash-files DIR
//       Reads every regular file under DIR in 64 KiB chunks and hashes it
//       with digest::Sha256 (OpenSSL EVP), as the walk does, without the
//       store, the closure or the manifests: the cost floor of the walk.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "digest/sha256.h"
#include "storage_bench_common.h"

namespace awc::bench {

int HashFiles(const Args& a) {
  if (a.positional().size() != 1) Die("usage: hash-files DIR");
  std::vector<std::string> paths;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(a.positional()[0])) {
    if (e.is_regular_file()) paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<char> buf(64 * 1024);
  uint64_t bytes = 0;
  Cpu c0 = Cpu::Self();
  double t0 = Now();
  for (const std::string& p : paths) {
    FILE* f = fopen(p.c_str(), "rbe");
    if (f == nullptr) Die("cannot open " + p);
    setvbuf(f, nullptr, _IONBF, 0);
    awc::digest::Sha256 h;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) {
      h.Update(buf.data(), n);
      bytes += n;
    }
    fclose(f);
    (void)h.FinishHex();
  }
  double secs = Now() - t0;
  Cpu c1 = Cpu::Self();
  printf("{\"files\": %zu, \"bytes\": %" PRIu64
         ", \"seconds\": %.6f, "
         "\"cpu_user\": %.3f, \"cpu_sys\": %.3f}\n",
         paths.size(), bytes, secs, c1.user - c0.user, c1.sys - c0.sys);
  return 0;
}

}  // namespace awc::bench
