// awc-bench-scale: the `scale` subcommand alone (storage_bench_scale.cc),
// as a program of its own so that it also builds against the tree of an
// older commit (bench/build_baseline.sh): the storage benchmark's part 4
// runs this tree's walk and that commit's side by side.
#include "storage_bench_common.h"

int main(int argc, char** argv) {
  return awc::bench::Scale(awc::bench::Args(argc, argv, 1));
}
