# awc-worker — the operator's entry point. CMake does the building.
#
#   make            build build/awc-worker and build/awcctl (installs
#                   missing packages first)
#   make demo       a worker fleet over a file:// store on a throwaway
#                   PostgreSQL cluster, with a summary of what it did
#   make check      unit and integration tests, plain and ASan/UBSan builds,
#                   against a throwaway PostgreSQL cluster
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install the Debian packages that are missing
#   make bench      the benchmarks of bench/ (see bench/README.md)
#   make bench-storage  only the storage benchmarks
#   make fuzz       the libFuzzer targets of fuzz/, FUZZ_SECONDS each (clang)
#   make chaos      the chaos suite (tests/chaos/) for CHAOS_SECONDS, with
#                   CHAOS_SEED to replay a run (make check runs a short one)

PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

# Debian 12 packages needed to build, test and benchmark.
DEB_PACKAGES := g++ make cmake pkg-config \
  libpq-dev libev-dev libjansson-dev libcurl4-openssl-dev \
  libssl-dev libmicrohttpd-dev libbsd-dev libsystemd-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  postgresql postgresql-common mandoc nodejs python3 awscli \
  clang-14 libclang-rt-14-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
MISSING = $(shell for p in $(DEB_PACKAGES); do \
  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' \
  || echo $$p; done)

.PHONY: all deps build build-asan check demo install bench bench-storage \
  clean lint-man fuzz fuzz-build chaos

all: build

# The S3 protocol server of the tests (npm), in a project-local directory
# that is not committed; tests/support/s3_server.cc looks for it there.
S3RVER_VERSION := 3.7.1
S3RVER_PREFIX  := $(CURDIR)/build-deps
S3RVER_PKG     := $(S3RVER_PREFIX)/node_modules/s3rver/package.json

deps:
	@missing="$(MISSING)"; \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y --no-install-recommends $$missing || \
	  { $(SUDO) apt-get update && \
	    $(SUDO) apt-get install -y --no-install-recommends $$missing; }; \
	fi
	@# Debian's nodejs comes without npm; NodeSource's nodejs bundles it.
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "installing: npm"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y --no-install-recommends npm || \
	  { $(SUDO) apt-get update && \
	    $(SUDO) apt-get install -y --no-install-recommends npm; }; \
	fi
	@if ! grep -qs '"version": "$(S3RVER_VERSION)"' $(S3RVER_PKG); then \
	  echo "installing: s3rver@$(S3RVER_VERSION) into $(S3RVER_PREFIX)"; \
	  npm install --prefix $(S3RVER_PREFIX) --no-save --no-audit --no-fund \
	    --loglevel=error s3rver@$(S3RVER_VERSION); \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)

$(ASAN_BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DAWC_SANITIZE=ON \
	  $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# pg_virtualenv creates a throwaway cluster in a temporary directory, exports
# PGHOST/PGPORT/PGUSER/PGPASSWORD to the command, and drops the cluster after.
# A random port keeps two of them (a test run beside a demo) apart.
PG_PORT = $$(shuf -i 20000-40000 -n 1)
PG_VENV = pg_virtualenv -t -c "-p $(PG_PORT)"
# The tests' cluster: many daemons at once, no need for durable commits.
PG_ENV  = $(PG_VENV) -o max_connections=300 -o fsync=off
CTEST  := ctest --output-on-failure --no-tests=error -j $(JOBS)

check: build build-asan lint-man fuzz-build
	$(PG_ENV) sh -c '$(CTEST) --test-dir $(BUILD) && \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --test-dir $(ASAN_BUILD)'
	fuzz/run.sh $(FUZZ_BUILD) $(CHECK_FUZZ_SECONDS)

demo: build
	$(PG_VENV) contrib/demo/run.sh $(BUILD)

lint-man: deps
	mandoc -Tlint -Wwarning man/*.[0-9]

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# The benchmarks build in their own tree (tests off) and run against a
# throwaway cluster with default settings; knobs in bench/README.md.
# BENCH_SUITES: `queue`, `storage` or both (make bench-storage: storage).
BENCH_BUILD  ?= build-bench
BENCH_SUITES ?= queue storage

bench: deps
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) \
	  --target awc-worker-bench awc-bench-pgbench-script awc-bench-storage
	$(PG_VENV) bench/run.sh $(BENCH_BUILD) $(BENCH_SUITES)

bench-storage:
	$(MAKE) bench BENCH_SUITES=storage

# libFuzzer targets: the library built by clang with ASan/UBSan and
# coverage instrumentation, one binary per parser in fuzz/. `make fuzz`
# runs each for FUZZ_SECONDS; `make check` for CHECK_FUZZ_SECONDS.
FUZZ_BUILD         ?= build-fuzz
FUZZ_SECONDS       ?= 60
CHECK_FUZZ_SECONDS ?= 10

$(FUZZ_BUILD)/CMakeCache.txt: | deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) \
	  -DCMAKE_BUILD_TYPE=Debug -DAWC_FUZZ=ON -DAWC_BUILD_TESTS=OFF \
	  $(CMAKE_ARGS)

fuzz-build: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz-targets

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The chaos suite makes, crashes and removes a PostgreSQL cluster of its
# own (no pg_virtualenv); knobs in README.md, "Testing".
CHAOS_SECONDS ?= 300
CHAOS_SEED    ?=

chaos: build
	CHAOS_SEED="$(CHAOS_SEED)" python3 tests/chaos/chaos.py \
	  --build-dir $(BUILD) --seconds $(CHAOS_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(BENCH_BUILD) $(FUZZ_BUILD)
