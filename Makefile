# awc-worker — the operator's entry point. CMake does the building.
#
#   make            build build/awc-worker and build/awcctl
#   make install    PREFIX=/usr/local DESTDIR= (stripped binaries)
#   make demo       a worker fleet over a file:// store on a throwaway
#                   PostgreSQL cluster, with a summary of what it did
#   make check      unit and integration tests (ASan/UBSan build) against a
#                   throwaway PostgreSQL cluster and s3rver, a /metrics
#                   scrape checked by promtool, a short fuzz run, the Debian
#                   package built, installed and run
#   make check-plain  the same unit and integration tests in the optimised
#                   build
#   make unit       only the tests that need no PostgreSQL, S3 server,
#                   browser or root (ctest label unit), in the ASan/UBSan
#                   tree of make check: the edit-compile-test loop
#   make deb        the Debian package, in build-deb/ (lintian-checked)
#   make bench      the benchmarks of bench/ (see bench/README.md)
#   make bench-storage  only the storage benchmarks
#   make bench-horizon  the queue while a long transaction pins the MVCC
#                   horizon, beside graphile-worker (a cluster with fsync on
#                   and pg_stat_statements)
#   make bench-scheduler  the planning time of each built-in schedule at
#                   1M snapshots / 1M jobs (a cluster with fsync on)
#   make bench-console  the console's page latency at 1M jobs and 100k
#                   snapshots (a cluster with fsync on)
#   make bench-fairness  validations beside a wave of budget-paced scrubs,
#                   with places, a limit, priorities alone or none (fsync on)
#   make fuzz       the libFuzzer targets of fuzz/, FUZZ_SECONDS each
#   make chaos      the chaos suite (tests/chaos/) for CHAOS_SECONDS, with
#                   CHAOS_SEED to replay a run (make check runs a short one)
#
# Each target first installs the Debian packages it needs and nothing
# more: `make` and `make install` only the build dependencies; the others
# add their own (PACKAGES_* below, and README.md, "Building").

PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

# Debian 12 packages, by the targets that need them.
PACKAGES_BUILD := g++ make cmake pkg-config \
  libpq-dev libev-dev libjansson-dev libcurl4-openssl-dev \
  libssl-dev libmicrohttpd-dev libbsd-dev libsystemd-dev
PACKAGES_PG    := postgresql postgresql-common
PACKAGES_FUZZ  := clang-14 libclang-rt-14-dev
PACKAGES_DEB   := debhelper dpkg-dev lintian
PACKAGES_UNIT  := libgtest-dev libgmock-dev
PACKAGES_TEST  := $(PACKAGES_UNIT) mandoc nodejs python3 awscli \
  curl chromium pgbouncer $(PACKAGES_PG) $(PACKAGES_FUZZ) $(PACKAGES_DEB)
PACKAGES_BENCH := libbenchmark-dev nodejs python3 eatmydata $(PACKAGES_PG)
PACKAGES_DEMO  := $(PACKAGES_PG)

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SUDO_KEEP_ENV := $(if $(SUDO),sudo -E,)

# $(call install_packages,LIST): apt-get install what of LIST is missing.
define install_packages
	@missing=$$(for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	  grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y --no-install-recommends $$missing || \
	  { $(SUDO) apt-get update && \
	    $(SUDO) apt-get install -y --no-install-recommends $$missing; }; \
	fi
endef

.PHONY: all deps deps-build deps-unit deps-test deps-bench deps-demo deps-deb deps-fuzz \
  deps-npm deps-bench-npm deps-promtool build build-tests build-asan check \
  check-plain unit \
  demo install deb bench bench-storage bench-horizon bench-scheduler bench-console \
  bench-fairness fuzz \
  fuzz-build lint-man clean chaos

all: build

deps-build:
	$(call install_packages,$(PACKAGES_BUILD))
deps-unit: deps-build
	$(call install_packages,$(PACKAGES_UNIT))
deps-test: deps-build deps-npm deps-promtool
	$(call install_packages,$(PACKAGES_TEST))
deps-bench: deps-build deps-bench-npm
	$(call install_packages,$(PACKAGES_BENCH))
deps-demo: deps-build
	$(call install_packages,$(PACKAGES_DEMO))
deps-deb: deps-build
	$(call install_packages,$(PACKAGES_DEB))
deps-fuzz: deps-build
	$(call install_packages,$(PACKAGES_FUZZ))
# Everything any target needs.
deps: deps-test deps-bench

# The S3 protocol server of the tests and benchmarks, and the library that
# drives Debian's chromium in the console's browser test (npm), in a
# project-local directory that is not committed; tests/support/s3_server.cc
# and tests/console/browser_test.cc look for them there. Both are installed
# by one npm command (npm removes what the command does not name). Debian's
# nodejs comes without npm; NodeSource's bundles it. puppeteer-core 24.x
# still runs on Debian's node 18 and speaks to chromium 156 over the
# DevTools protocol.
S3RVER_VERSION    := 3.7.1
PUPPETEER_VERSION := 24.43.1
S3RVER_PREFIX     := $(CURDIR)/build-deps
NPM_PACKAGES      := s3rver@$(S3RVER_VERSION) puppeteer-core@$(PUPPETEER_VERSION)
# The queue benchmark's peer (bench/README.md), in a prefix of its own
# beside s3rver: one npm install per prefix, so neither prunes the other.
GRAPHILE_VERSION := 0.17.3
GRAPHILE_PREFIX  ?= $(CURDIR)/build-deps/graphile-worker
GRAPHILE_PKG     := $(GRAPHILE_PREFIX)/node_modules/graphile-worker/package.json

deps-npm:
	$(call install_packages,nodejs)
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "installing: npm"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y --no-install-recommends npm || \
	  { $(SUDO) apt-get update && \
	    $(SUDO) apt-get install -y --no-install-recommends npm; }; \
	fi
	@missing=; for p in $(NPM_PACKAGES); do \
	  grep -qs "\"version\": \"$${p##*@}\"" \
	    $(S3RVER_PREFIX)/node_modules/$${p%@*}/package.json || missing=1; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing: $(NPM_PACKAGES) into $(S3RVER_PREFIX)"; \
	  npm install --prefix $(S3RVER_PREFIX) --no-save --no-audit --no-fund \
	    --loglevel=error $(NPM_PACKAGES); \
	fi

# promtool, which checks a real /metrics scrape in the tests
# (tests/obs/alert_metrics_test.cc). Installing Debian's prometheus package
# would also add a system user and enable and start a Prometheus server, so
# only promtool is taken out of the package (downloaded with apt-get, never
# installed) into a project-local directory that is not committed.
PROMTOOL_DIR := $(CURDIR)/build-tools
PROMTOOL     := $(PROMTOOL_DIR)/usr/bin/promtool

deps-promtool:
	@if [ ! -x $(PROMTOOL) ]; then \
	  echo "extracting: promtool (Debian package prometheus) into $(PROMTOOL_DIR)"; \
	  tmp=$$(mktemp -d) && \
	  { (cd $$tmp && apt-get -q -o APT::Sandbox::User=root download prometheus) || \
	    { $(SUDO) apt-get update && \
	      (cd $$tmp && apt-get -q -o APT::Sandbox::User=root download prometheus); }; } && \
	  mkdir -p $(PROMTOOL_DIR) && \
	  dpkg-deb --fsys-tarfile $$tmp/prometheus_*.deb | \
	    tar -x -C $(PROMTOOL_DIR) ./usr/bin/promtool; \
	  status=$$?; rm -rf $$tmp; exit $$status; \
	fi

deps-bench-npm: deps-npm
	@if ! grep -qs '"version": "$(GRAPHILE_VERSION)"' $(GRAPHILE_PKG); then \
	  echo "installing: graphile-worker@$(GRAPHILE_VERSION) into $(GRAPHILE_PREFIX)"; \
	  mkdir -p $(GRAPHILE_PREFIX) && \
	  npm install --prefix $(GRAPHILE_PREFIX) --no-save --no-audit --no-fund \
	    --loglevel=error graphile-worker@$(GRAPHILE_VERSION); \
	fi

# `make` builds the programs only; `make check` the same tree with the tests.
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

build: deps-build
	$(CONFIGURE) -DAWC_BUILD_TESTS=OFF
	cmake --build $(BUILD) -j $(JOBS)

build-tests: deps-test
	$(CONFIGURE) -DAWC_BUILD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

# The benchmark programs are built there too (not run), so that a change
# that breaks one fails make check rather than the next make bench.
CONFIGURE_ASAN = cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug \
  -DAWC_SANITIZE=ON -DAWC_BUILD_BENCH=ON $(CMAKE_ARGS)

build-asan: deps-test
	$(CONFIGURE_ASAN)
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# pg_virtualenv creates a throwaway cluster in a temporary directory, exports
# PGHOST/PGPORT/PGUSER/PGPASSWORD to the command, and drops the cluster after.
# A random port keeps two of them (a test run beside a demo) apart.
PG_PORT = $$(shuf -i 20000-40000 -n 1)
PG_VENV = pg_virtualenv -t -c "-p $(PG_PORT)"
# The tests' cluster: many daemons at once, no need for durable commits.
# It lives in memory (/dev/shm) when there is room for it (4 GiB, for its
# WAL): most tests create and drop a database, and on a disk file system
# allocating their files' inodes cost make check over a minute. The tests
# themselves keep the caller's TMPDIR.
TEST_TMPDIR := $(or $(TMPDIR),/tmp)
PG_TMPDIR   := $(or $(shell df -Pk /dev/shm 2>/dev/null | \
  awk 'NR == 2 && $$4 >= 4194304 { print "/dev/shm" }'),$(TEST_TMPDIR))
PG_ENV  = TMPDIR=$(PG_TMPDIR) $(PG_VENV) -o max_connections=300 \
  -o fsync=off env TMPDIR=$(TEST_TMPDIR)
# The tests mostly wait (for daemons, leases, the database): one more at a
# time than there are CPUs keeps the CPUs busy.
TEST_JOBS ?= $(shell echo $$(($(JOBS) + 1)))
CTEST  := ctest --output-on-failure --no-tests=error -j $(TEST_JOBS)

# The tests run once, in the ASan/UBSan tree; the optimised binaries the
# package ships are run by the package test. `make check-plain` runs the
# same tests in the optimised tree of `make build`.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
check: build-asan lint-man fuzz-build deb
	PROMTOOL=$(PROMTOOL) $(SANITIZER_ENV) $(PG_ENV) \
	  $(CTEST) --test-dir $(ASAN_BUILD)
	fuzz/run.sh $(FUZZ_BUILD) $(CHECK_FUZZ_SECONDS) $(JOBS)
	$(PG_VENV) $(SUDO_KEEP_ENV) tests/package_test.sh $(DEB_BUILD)

# The unit tests need only what they link and the two programs (the
# install test installs them); the integration tests are not built.
unit: deps-unit
	$(CONFIGURE_ASAN)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target awc_unit_tests \
	  awc-worker awcctl
	$(SANITIZER_ENV) $(CTEST) --test-dir $(ASAN_BUILD) -L unit

check-plain: build-tests
	PROMTOOL=$(PROMTOOL) $(PG_ENV) $(CTEST) --test-dir $(BUILD)

demo: deps-demo build
	$(PG_VENV) contrib/demo/run.sh $(BUILD)

lint-man: deps-test
	mandoc -Tlint -Wwarning man/*.[0-9]

# The binaries stripped, as the package ships them (their symbols are in
# the build tree).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --strip

# The Debian package, built from a copy of the tree in $(DEB_BUILD) (the
# packaging tools write next to the source directory), then checked with
# lintian: any error fails the build.
DEB_BUILD   ?= build-deb
DEB_VERSION := $(shell sed -n 's/^project.awc-worker VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
DEB_SOURCE  := $(DEB_BUILD)/awc-worker-$(DEB_VERSION)

deb: deps-deb
	@head -n 1 debian/changelog | grep -q "(${DEB_VERSION})" || \
	  { echo "debian/changelog is not at version $(DEB_VERSION)" >&2; exit 1; }
	rm -rf $(DEB_BUILD)
	mkdir -p $(DEB_SOURCE)
	tar --exclude=./.git --exclude='./build' --exclude='./build-*' -cf - . | \
	  tar -C $(DEB_SOURCE) -xf -
	cd $(DEB_SOURCE) && DEB_BUILD_OPTIONS="parallel=$(JOBS)" \
	  dpkg-buildpackage -us -uc -b
	lintian --fail-on error --suppress-tags-from-file debian/lintian-ignored \
	  $(DEB_BUILD)/awc-worker_$(DEB_VERSION)_*.changes

# The benchmarks build in their own tree (tests off) and run against a
# throwaway cluster; knobs in bench/README.md. The queue suite gets a
# durable one of its own (fsync on: pg_virtualenv's default is off), with
# graphile-worker from GRAPHILE_PREFIX beside the daemon; so does the
# pinned horizon (`horizon`), with pg_stat_statements loaded
# (BENCH_HORIZON_PG_OPTS).
# BENCH_SUITES: any of `queue`, `storage`, `horizon` (make bench-storage:
# storage; make bench-horizon: horizon).
# The storage suite's walk at scale runs beside the walk of
# BENCH_BASELINE_REF, the last commit whose walk held the closure in
# memory, built by bench/build_baseline.sh into BENCH_BASELINE_DIR (unless
# BENCH_BASELINE_BUILD names a build already; BENCH_BASELINE_REF=none: no
# baseline). Its dedup part runs the daemon and awcctl of
# BENCH_DEDUP_BASELINE_REF, the last commit before the content DAG, built
# the same way into BENCH_DEDUP_BASELINE_DIR (BENCH_DEDUP_BASELINE_BUILD,
# BENCH_DEDUP_BASELINE_REF=none likewise).
BENCH_BUILD  ?= build-bench
BENCH_SUITES ?= queue storage horizon
BENCH_HORIZON_PG_OPTS := -o shared_preload_libraries=pg_stat_statements
BENCH_BASELINE_REF ?= a64bb62
BENCH_BASELINE_DIR ?= build-bench-baseline
BENCH_DEDUP_BASELINE_REF ?= 870e5c2
BENCH_DEDUP_BASELINE_DIR ?= build-bench-dedup-baseline

bench: deps-bench
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) \
	  --target awc-worker-bench awc-bench-pgbench-script awc-bench-storage \
	  awc-bench-scale awc-bench-scheduler awc-worker awcctl
	@set -e; for suite in $(BENCH_SUITES); do \
	  if [ "$$suite" = queue ] || [ "$$suite" = horizon ]; then \
	    pg_opts=; \
	    if [ "$$suite" = horizon ]; then pg_opts="$(BENCH_HORIZON_PG_OPTS)"; fi; \
	    BENCH_GRAPHILE="$${BENCH_GRAPHILE:-$(GRAPHILE_PREFIX)/node_modules/.bin/graphile-worker}" \
	      $(PG_VENV) -o fsync=on $$pg_opts bench/run.sh $(BENCH_BUILD) $$suite; \
	    continue; \
	  fi; \
	  parts=" $${BENCH_STORAGE_PARTS:-scale dedup} "; \
	  if [ "$$suite" = storage ] && [ -z "$${BENCH_BASELINE_BUILD:-}" ] && \
	     [ "$(BENCH_BASELINE_REF)" != none ] && \
	     [ "$${parts#* scale }" != "$$parts" ]; then \
	    rc=0; \
	    baseline=$$(JOBS=$(JOBS) bench/build_baseline.sh \
	      $(BENCH_BASELINE_REF) $(BENCH_BASELINE_DIR)) || rc=$$?; \
	    if [ $$rc -eq 0 ]; then export BENCH_BASELINE_BUILD=$$baseline; \
	    elif [ $$rc -ne 3 ]; then exit $$rc; fi; \
	  fi; \
	  if [ "$$suite" = storage ] && \
	     [ -z "$${BENCH_DEDUP_BASELINE_BUILD:-}" ] && \
	     [ "$(BENCH_DEDUP_BASELINE_REF)" != none ] && \
	     [ "$${parts#* dedup }" != "$$parts" ]; then \
	    rc=0; \
	    baseline=$$(JOBS=$(JOBS) bench/build_baseline.sh \
	      $(BENCH_DEDUP_BASELINE_REF) $(BENCH_DEDUP_BASELINE_DIR) \
	      awc-worker awcctl) || rc=$$?; \
	    if [ $$rc -eq 0 ]; then export BENCH_DEDUP_BASELINE_BUILD=$$baseline; \
	    elif [ $$rc -ne 3 ]; then exit $$rc; fi; \
	  fi; \
	  $(PG_VENV) -o fsync=on bench/run.sh $(BENCH_BUILD) $$suite; \
	done

bench-storage:
	$(MAKE) bench BENCH_SUITES=storage

# The queue under a pinned MVCC horizon, beside graphile-worker, on a
# cluster of its own at PostgreSQL's default durability with
# pg_stat_statements loaded (bench/README.md).
bench-horizon: deps-bench
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target awc-worker-bench
	BENCH_GRAPHILE="$${BENCH_GRAPHILE:-$(GRAPHILE_PREFIX)/node_modules/.bin/graphile-worker}" \
	  $(PG_VENV) -o fsync=on $(BENCH_HORIZON_PG_OPTS) \
	  bench/run.sh $(BENCH_BUILD) horizon

# What a user waits for under maintenance load: validations beside a wave of
# budget-paced scrubs, with and without background places, on a cluster of
# its own at PostgreSQL's default durability (bench/README.md, "Fairness").
bench-fairness: deps-bench
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target awc-worker awcctl
	$(PG_VENV) -o fsync=on bench/run.sh $(BENCH_BUILD) fairness

# The scheduler's planners at PostgreSQL's default durability: its own
# cluster, with fsync on (pg_virtualenv's default is off).
bench-scheduler: deps-bench
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target awc-bench-scheduler
	$(PG_VENV) -o fsync=on bench/run.sh $(BENCH_BUILD) scheduler

# The console's pages at 1M jobs and 100k snapshots, on a cluster of its
# own at PostgreSQL's default durability (pg_virtualenv's default is fsync
# off).
bench-console: deps-bench
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target awcctl
	$(PG_VENV) -o fsync=on bench/run.sh $(BENCH_BUILD) console

# libFuzzer targets: the library built by clang with ASan/UBSan and
# coverage instrumentation, one binary per parser in fuzz/. `make fuzz`
# runs each for FUZZ_SECONDS; `make check` for CHECK_FUZZ_SECONDS; JOBS of
# them at once.
FUZZ_BUILD         ?= build-fuzz
FUZZ_SECONDS       ?= 60
CHECK_FUZZ_SECONDS ?= 10

fuzz-build: deps-fuzz
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) \
	  -DCMAKE_BUILD_TYPE=Debug -DAWC_FUZZ=ON -DAWC_BUILD_TESTS=OFF \
	  $(CMAKE_ARGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz-targets

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(JOBS)

# The chaos suite makes, crashes and removes a PostgreSQL cluster of its
# own (no pg_virtualenv); knobs in README.md, "Testing".
CHAOS_SECONDS ?= 300
CHAOS_SEED    ?=

chaos: build-tests
	CHAOS_SEED="$(CHAOS_SEED)" python3 tests/chaos/chaos.py \
	  --build-dir $(BUILD) --seconds $(CHAOS_SECONDS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(BENCH_BUILD) $(BENCH_BASELINE_DIR) \
	  $(BENCH_DEDUP_BASELINE_DIR) \
	  $(FUZZ_BUILD) $(DEB_BUILD)
