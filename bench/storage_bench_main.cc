// awc-bench-storage: the in-process half of the storage benchmarks
// (bench/storage_bench.py, make bench-storage; see bench/README.md). Built
// only with -DAWC_BUILD_BENCH=ON; never installed.
//
// Settings come from the environment exactly as the daemon reads them
// (config::Config::Load: AWC_CAS_URL, AWC_S3_*, DATABASE_URL, AWC_GC_*,
// AWC_MANIFEST_MAX_BYTES, ...). Every subcommand prints one JSON object
// per line on stdout; errors go to stderr with exit status 1.
//
// The subcommands, each in its own file (its options and output are
// described there); what they share is in storage_bench_common.h:
//
//   gen           storage_bench_gen.cc: writes a snapshot tree
//   walk          storage_bench_walk.cc: one cas::WalkClosure, timed
//   hash-files    storage_bench_hash_files.cc: read + SHA-256 of files,
//                 the cost floor of the walk
//   gc            storage_bench_gc.cc: a dry run and a full GC epoch,
//                 timed by phase
//   migrate       storage_bench_migrate.cc: applies the migrations
//   explain-plan  storage_bench_explain_plan.cc: EXPLAIN of the GC plan
//
// The walk at scale is a program of its own, awc-bench-scale
// (storage_bench_scale_main.cc).
#include <cstdio>
#include <string>

#include "storage_bench_common.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: awc-bench-storage gen|walk|hash-files|gc|migrate|"
            "explain-plan "
            "...\n(see bench/storage_bench_main.cc)\n");
    return 2;
  }
  std::string cmd = argv[1];
  awc::bench::Args args(argc, argv, 2);
  if (cmd == "gen") return awc::bench::Gen(args);
  if (cmd == "walk") return awc::bench::Walk(args);
  if (cmd == "hash-files") return awc::bench::HashFiles(args);
  if (cmd == "gc") return awc::bench::Gc(args);
  if (cmd == "migrate") return awc::bench::Migrate(args);
  if (cmd == "explain-plan") return awc::bench::ExplainPlan(args);
  fprintf(stderr, "awc-bench-storage: unknown subcommand %s\n", cmd.c_str());
  return 2;
}
