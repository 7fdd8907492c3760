# awc-worker — the operator's entry point. CMake does the building.
#
#   make            build build/awc-worker (installs missing packages first)
#   make check      unit and integration tests, plain and ASan/UBSan builds,
#                   against a throwaway PostgreSQL cluster
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install the Debian packages that are missing
#   make bench      the benchmarks of bench/ (see bench/README.md)

PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

# Debian 12 packages needed to build, test and benchmark.
DEB_PACKAGES := g++ make cmake pkg-config \
  libpq-dev libev-dev libjansson-dev libinih-dev libcurl4-openssl-dev \
  libssl-dev libmicrohttpd-dev libbsd-dev libsystemd-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  postgresql postgresql-common mandoc

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
MISSING = $(shell for p in $(DEB_PACKAGES); do \
  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' \
  || echo $$p; done)

.PHONY: all deps build build-asan check install bench clean lint-man

all: build

deps:
	@missing="$(MISSING)"; \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y --no-install-recommends $$missing || \
	  { $(SUDO) apt-get update && \
	    $(SUDO) apt-get install -y --no-install-recommends $$missing; }; \
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
PG_ENV := pg_virtualenv -t -o max_connections=300 -o fsync=off
CTEST  := ctest --output-on-failure --no-tests=error -j $(JOBS)

check: build build-asan lint-man
	$(PG_ENV) sh -c '$(CTEST) --test-dir $(BUILD) && \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --test-dir $(ASAN_BUILD)'

lint-man: deps
	mandoc -Tlint -Wwarning man/*.[0-9]

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

bench: deps
	cmake -S . -B $(BUILD) -DAWC_BUILD_BENCH=ON $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	pg_virtualenv -t bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
