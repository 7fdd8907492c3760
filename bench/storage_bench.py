#!/usr/bin/env python3
"""The storage benchmarks of awc-worker (make bench-storage; see
bench/README.md, section "Storage").

Runs inside `pg_virtualenv -t` (PGHOST, PGPORT, PGUSER, PGPASSWORD are set;
only the GC part needs them) and measures:

  1. validation throughput over a file:// store: cas::WalkClosure of a
     generated snapshot tree (awc-bench-storage walk), against sha256sum,
     `openssl dgst -sha256` and a bare read+hash loop (awc-bench-storage
     hash-files) over exactly the same object files; warm page cache, and
     cold (drop_caches before every run) when /proc/sys/vm/drop_caches is
     writable;
  2. validation throughput over s3:// against s3rver on loopback, with
     AWC_S3_MAX_CONCURRENCY=1 and with the default (16), with s3rver's CPU;
  3. GC cost for a tenant with 10k, 100k and 1M objects in awc.objects
     (rows made with generate_series, a realistic mix of referenced,
     pinned, young and eligible objects): a dry run (plan only) and one full
     epoch (plan, canary, delete 1000, verify) with gc::RunSweep, per
     phase; and EXPLAIN (ANALYZE, BUFFERS) of the plan at the largest size;
  4. the walk at scale (awc-bench-storage scale): peak RSS above idle and
     objects/s for trees of 100k and 1M tiny objects over file:// and 10M
     over memory://, beside a baseline build (BENCH_BASELINE_BUILD);
  5. validation over s3:// through a loopback proxy that adds a time to
     first byte (20 ms) to every s3rver response, at concurrency 1, 4, 16
     and 64 with ~1000 small objects, and MB/s with 64 MiB objects.

Every configuration runs --repeat times, interleaved; tables show the
median and every run. Standard library only.
"""

import argparse
import asyncio
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.dont_write_bytecode = True  # no bench/__pycache__ from the import below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from queue_bench import (cpu_busy, create_db, db_url, die, drop_db,  # noqa: E402
                         env_int, env_list, fmt_runs, log, med, psql, PgCpu,
                         Session, write_report, CLK_TCK)

TENANT = "bench"
MB = 1e6  # throughput figures are in MB/s = 10^6 bytes per second
LIVE_PGIDS = []  # process groups (s3rver) to kill if the benchmark dies


def _kill_live():
    for pid in LIVE_PGIDS:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def run_json(args, env=None, what=""):
    """Runs a program that prints one JSON object; returns it, with the
    wall time and CPU (user+sys of the child) of the whole process."""
    t0, c0, b0 = time.monotonic(), os.times(), cpu_busy()
    r = subprocess.run(args, env=env, capture_output=True, text=True)
    t1, c1, b1 = time.monotonic(), os.times(), cpu_busy()
    if r.returncode != 0:
        die(f"{what or args[0]} failed ({r.returncode}): {r.stderr.strip()}")
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        die(f"{what or args[0]}: no JSON in its output: {r.stdout!r}")
    wall = t1 - t0
    cpu = (c1.children_user + c1.children_system
           - c0.children_user - c0.children_system)
    out["_wall"], out["_cpu"], out["_busy"] = wall, cpu, b1 - b0
    return out


def run_shell_timed(cmd):
    """(wall seconds, CPU seconds of the children, machine busy CPU s)."""
    t0, c0, b0 = time.monotonic(), os.times(), cpu_busy()
    r = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd],
                       capture_output=True, text=True)
    t1, c1, b1 = time.monotonic(), os.times(), cpu_busy()
    if r.returncode != 0:
        die(f"`{cmd}` failed ({r.returncode}): {r.stderr.strip()}")
    cpu = (c1.children_user + c1.children_system
           - c0.children_user - c0.children_system)
    return t1 - t0, cpu, b1 - b0


def tree_bytes(path):
    files, total = 0, 0
    for d, _, names in os.walk(path):
        for n in names:
            files += 1
            total += os.path.getsize(os.path.join(d, n))
    return files, total


def proc_cpu(pid):
    """CPU seconds of a process and its reaped children (/proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return 0.0
    fields = s[s.rindex(")") + 2:].split()
    return sum(int(x) for x in fields[11:15]) / CLK_TCK


def drop_caches_available():
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- s3rver

class LatencyProxy:
    """A loopback TCP proxy in front of s3rver that holds the first bytes of
    each response for `delay` seconds before passing them on, as a real
    object store's time to first byte. HTTP/1.1 without pipelining (libcurl
    does not pipeline): the first bytes the server sends after the client
    sent a request start its response. Runs its asyncio loop in a thread."""

    def __init__(self, upstream_port, delay):
        self.upstream_port = upstream_port
        self.delay = delay
        self.loop = asyncio.new_event_loop()
        self.connections = 0
        ready = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.server = self.loop.run_until_complete(asyncio.start_server(
                self._handle, "127.0.0.1", 0, backlog=1024))
            self.port = self.server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait()

    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, creader, cwriter):
        self.connections += 1
        try:
            sreader, swriter = await asyncio.open_connection(
                "127.0.0.1", self.upstream_port)
        except OSError:
            cwriter.close()
            return
        awaiting = [False]  # a request went up; its response has not started

        async def up():
            try:
                while True:
                    data = await creader.read(1 << 16)
                    if not data:
                        break
                    awaiting[0] = True
                    swriter.write(data)
                    await swriter.drain()
            except (ConnectionError, OSError):
                pass
            swriter.close()

        async def down():
            try:
                while True:
                    data = await sreader.read(1 << 18)
                    if not data:
                        break
                    if awaiting[0]:
                        awaiting[0] = False
                        await asyncio.sleep(self.delay)
                    cwriter.write(data)
                    await cwriter.drain()
            except (ConnectionError, OSError):
                pass
            cwriter.close()

        await asyncio.gather(up(), down())

    def stop(self):
        def shut():
            self.server.close()
            self.loop.stop()
        self.loop.call_soon_threadsafe(shut)
        self.thread.join(5)


class S3rver:
    """s3rver on a free loopback port, as tests/support/s3_server.cc starts
    it, plus --silent (no log line per request)."""

    def __init__(self, script, datadir, logpath):
        self.port = free_port()
        self.log = open(logpath, "wb")
        self.p = subprocess.Popen(
            ["node", "--openssl-legacy-provider", script, "--directory",
             datadir, "--address", "127.0.0.1", "--port", str(self.port),
             "--service-endpoint", "localhost", "--silent"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            start_new_session=True)
        LIVE_PGIDS.append(self.p.pid)
        deadline = time.monotonic() + 30
        while True:
            if self.p.poll() is not None:
                die(f"s3rver exited ({self.p.returncode}); see {logpath}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    die(f"s3rver did not come up; see {logpath}")
                time.sleep(0.05)

    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def create_bucket(self, bucket):
        req = urllib.request.Request(f"{self.endpoint()}/{bucket}",
                                     method="PUT")
        with urllib.request.urlopen(req, timeout=30) as r:
            if r.status != 200:
                die(f"s3rver: creating bucket {bucket}: HTTP {r.status}")

    def cpu(self):
        return proc_cpu(self.p.pid)

    def stop(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except OSError:
            pass
        self.p.wait()
        LIVE_PGIDS.remove(self.p.pid)
        self.log.close()


# --------------------------------------------------------------- the bench

class Bench:
    def __init__(self, a):
        self.a = a
        self.prog = os.path.join(a.build_dir, "bench", "awc-bench-storage")
        if not os.access(self.prog, os.X_OK):
            die(f"{self.prog} is missing; build with -DAWC_BUILD_BENCH=ON")
        self.workdir = tempfile.mkdtemp(prefix="awc-storage-bench-",
                                        dir=a.tmpdir or None)
        self.notes = []

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if not (k.startswith("AWC_") or k == "DATABASE_URL")}
        env["AWC_LOG_LEVEL"] = "warn"
        env.update({k: str(v) for k, v in extra.items() if v is not None})
        return env

    # -- 1. file://

    def file_part(self):
        a = self.a
        root_dir = os.path.join(self.workdir, "file-cas")
        env = self.env(AWC_CAS_URL=f"file://{root_dir}")
        log(f"file: generating a {a.file_mib} MiB tree in {root_dir}")
        gen = run_json([self.prog, "gen", "--tenant", TENANT, "--total-mib",
                        str(a.file_mib), "--large-mib", str(a.large_mib)],
                       env, "gen (file)")
        objdir = os.path.join(root_dir, TENANT)
        files, nbytes = tree_bytes(objdir)
        if files != gen["objects"] or nbytes != gen["bytes"]:
            die(f"the file store holds {files} files, {nbytes} bytes; the "
                f"generator wrote {gen['objects']} objects, {gen['bytes']} bytes")
        q = objdir.replace("'", "'\\''")
        refs = {
            "sha256sum": f"find '{q}' -type f -print0 | xargs -0 sha256sum "
                         ">/dev/null",
            "openssl": f"find '{q}' -type f -print0 | xargs -0 openssl dgst "
                       "-sha256 -r >/dev/null",
        }
        modes = ["warm"]
        # (The probe drops the caches: before the warm-up, not after it.)
        if a.cold == "auto" and drop_caches_available():
            modes.append("cold")
        elif a.cold == "auto":
            self.notes.append("cold-cache runs skipped: /proc/sys/vm/"
                              "drop_caches is not writable")
        # Warm the page cache (and check that the walk succeeds).
        self.walk(env, gen["root"])
        run_shell_timed(refs["sha256sum"])
        runs = {m: {k: [] for k in ("walk", "hash-files", "sha256sum",
                                    "openssl")} for m in modes}
        for rep in range(1, a.repeat + 1):
            for mode in modes:
                for kind in ("walk", "hash-files", "sha256sum", "openssl"):
                    if mode == "cold":
                        drop_caches()
                    if kind == "walk":
                        r = self.walk(env, gen["root"])
                        secs, cpu, others = (r["seconds"], r["_cpu"],
                                             (r["_busy"] - r["_cpu"]) / r["_wall"])
                    elif kind == "hash-files":
                        r = run_json([self.prog, "hash-files", objdir],
                                     env, "hash-files")
                        if r["bytes"] != nbytes:
                            die("hash-files read a different number of bytes")
                        secs, cpu, others = (r["seconds"], r["_cpu"],
                                             (r["_busy"] - r["_cpu"]) / r["_wall"])
                    else:
                        wall, cpu, busy = run_shell_timed(refs[kind])
                        secs, others = wall, (busy - cpu) / wall
                    run = {"seconds": secs, "mbps": nbytes / secs / MB,
                           "cpu": cpu, "others": max(0.0, others)}
                    runs[mode][kind].append(run)
                    log(f"file run {rep}/{a.repeat} {mode:<4} {kind:<10} "
                        f"{run['mbps']:8.1f} MB/s ({secs:.3f} s)")
        shutil.rmtree(root_dir, ignore_errors=True)
        return {"gen": gen, "files": files, "bytes": nbytes, "runs": runs,
                "modes": modes}

    def walk(self, env, root):
        r = run_json([self.prog, "walk", "--tenant", TENANT, "--root", root],
                     env, "walk")
        return r

    # -- 4. the walk at scale: memory and objects/s

    def scale_runs(self, prog, env, n):
        return run_json([prog, "scale", "--tenant", TENANT, "--objects",
                         str(n), "--fanout", str(self.a.scale_fanout)],
                        env, f"scale {n} ({os.path.basename(prog)})")

    def scale_part(self):
        a = self.a
        progs = [("new", self.prog)]
        if a.baseline_build:
            old = os.path.join(a.baseline_build, "bench", "awc-bench-storage")
            if not os.access(old, os.X_OK):
                die(f"{old} is missing (BENCH_BASELINE_BUILD)")
            progs.insert(0, ("old", old))
        else:
            self.notes.append("scale: no BENCH_BASELINE_BUILD, so no old walk "
                              "to compare with")
        spill = os.path.join(self.workdir, "spill")
        os.makedirs(spill, exist_ok=True)
        root_dir = os.path.join(self.workdir, "scale-cas")
        results = []
        for n in a.scale_sizes:
            if n <= a.scale_file_max:
                env = self.env(AWC_CAS_URL=f"file://{root_dir}", TMPDIR=spill)
                store = "file"
            else:
                env = self.env(AWC_CAS_URL="memory://", TMPDIR=spill)
                store = "memory"
            reps = a.scale_repeat if n <= a.scale_file_max else 1
            if store == "file":
                log(f"scale: {n} objects over file:// (tree made once, then "
                    "a warm-up walk)")
                gen = self.scale_runs(self.prog, env, n)
            else:
                log(f"scale: {n} objects over memory:// (made by every run)")
                gen = None
            runs = {name: [] for name, _ in progs}
            for rep in range(1, reps + 1):
                for name, prog in progs:
                    r = self.scale_runs(prog, env, n)
                    r["others"] = max(0.0, (r["_busy"] - r["_cpu"]) / r["_wall"])
                    runs[name].append(r)
                    log(f"scale run {rep}/{reps} {n} {name}: "
                        f"{r['objects'] / r['seconds']:.0f} objects/s, peak "
                        f"{(r['peak_kib'] - r['idle_kib']) / 1024:.1f} MiB "
                        f"above idle")
                    if os.listdir(spill):
                        die(f"the walk left files in {spill}")
            if gen is None:
                gen = runs[progs[-1][0]][0]
            results.append({"n": n, "store": store, "gen": gen, "runs": runs,
                            "reps": reps})
        shutil.rmtree(root_dir, ignore_errors=True)
        return results

    # -- 2. s3://

    def s3_part(self):
        a = self.a
        script = a.s3rver
        if not os.path.exists(script):
            self.notes.append(f"S3 part skipped: s3rver is not installed at "
                              f"{script} (make deps)")
            return None
        datadir = os.path.join(self.workdir, "s3rver-data")
        os.makedirs(datadir)
        srv = S3rver(script, datadir, os.path.join(self.workdir, "s3rver.log"))
        try:
            srv.create_bucket("bench")
            base = dict(AWC_CAS_URL="s3://bench",
                        AWC_S3_ENDPOINT=srv.endpoint(),
                        AWC_S3_FORCE_PATH_STYLE="true",
                        AWC_S3_ACCESS_KEY_ID="S3RVER",
                        AWC_S3_SECRET_ACCESS_KEY="S3RVER")
            log(f"s3: uploading a {a.s3_mib} MiB tree to s3rver "
                f"(port {srv.port})")
            s0 = srv.cpu()
            gen = run_json([self.prog, "gen", "--tenant", TENANT,
                            "--total-mib", str(a.s3_mib), "--large-mib",
                            str(a.large_mib)], self.env(**base), "gen (s3)")
            gen["server_cpu"] = srv.cpu() - s0
            configs = [("1", "1"), ("default", None)]
            # Warm-up walk (s3rver's JIT, the page cache of its files).
            self.walk(self.env(**base), gen["root"])
            runs = {name: [] for name, _ in configs}
            for rep in range(1, a.repeat + 1):
                for name, conc in configs:
                    env = self.env(**base, AWC_S3_MAX_CONCURRENCY=conc)
                    s0 = srv.cpu()
                    r = self.walk(env, gen["root"])
                    server = srv.cpu() - s0
                    r["server_cpu"] = server
                    r["others"] = max(0.0, (r["_busy"] - r["_cpu"] - server)
                                      / r["_wall"])
                    r["mbps"] = r["bytes"] / r["seconds"] / MB
                    r["objps"] = r["objects"] / r["seconds"]
                    runs[name].append(r)
                    log(f"s3 run {rep}/{a.repeat} concurrency {name:<7} "
                        f"{r['mbps']:7.1f} MB/s {r['objps']:7.0f} objects/s "
                        f"s3rver CPU {server / r['seconds']:.2f}")
        finally:
            srv.stop()
        return {"gen": gen, "runs": runs}

    # -- 5. s3:// at a real object store's latency

    def s3_latency_part(self):
        a = self.a
        script = a.s3rver
        if not os.path.exists(script):
            self.notes.append(f"S3 latency part skipped: s3rver is not "
                              f"installed at {script} (make deps)")
            return None
        datadir = os.path.join(self.workdir, "s3rver-latency-data")
        os.makedirs(datadir)
        srv = S3rver(script, datadir,
                     os.path.join(self.workdir, "s3rver-latency.log"))
        proxy = None
        try:
            srv.create_bucket("bench")
            proxy = LatencyProxy(srv.port, a.s3_ttfb_ms / 1000.0)

            def env(endpoint, conc=None):
                return self.env(AWC_CAS_URL="s3://bench",
                                AWC_S3_ENDPOINT=endpoint,
                                AWC_S3_FORCE_PATH_STYLE="true",
                                AWC_S3_ACCESS_KEY_ID="S3RVER",
                                AWC_S3_SECRET_ACCESS_KEY="S3RVER",
                                AWC_S3_MAX_CONCURRENCY=conc)
            log(f"s3 latency: uploading about {a.s3_small_objects} small "
                "objects (direct to s3rver)")
            # Blobs of 4-64 KiB (34 KiB on average) under 4 x 4 leaves.
            small = run_json([self.prog, "gen", "--tenant", TENANT,
                              "--total-mib",
                              str(max(1, a.s3_small_objects * 34 // 1024)),
                              "--large-mib", "0", "--fanout", "4"],
                             env(srv.endpoint()), "gen (s3 small)")
            log(f"s3 latency: uploading {a.s3_large_count} objects of 64 MiB")
            large = run_json([self.prog, "gen", "--tenant", "large",
                              "--total-mib", str(64 * a.s3_large_count),
                              "--large-mib", "64", "--large-share", "1",
                              "--fanout", "1"],
                             env(srv.endpoint()), "gen (s3 large)")
            self.walk(env(proxy.endpoint()), small["root"])  # warm-up
            runs = {c: [] for c in a.s3_concurrency}
            big = []
            for rep in range(1, a.s3_latency_repeat + 1):
                for c in a.s3_concurrency:
                    s0 = srv.cpu()
                    r = self.walk(env(proxy.endpoint(), c), small["root"])
                    r["server_cpu"] = srv.cpu() - s0
                    r["objps"] = r["objects"] / r["seconds"]
                    runs[c].append(r)
                    log(f"s3 latency run {rep}/{a.s3_latency_repeat} "
                        f"concurrency {c:>3}: {r['objps']:7.0f} objects/s, "
                        f"{r.get('max_in_flight')} in flight, "
                        f"{r.get('connections')} connections")
                r = run_json([self.prog, "walk", "--tenant", "large", "--root",
                              large["root"]], env(proxy.endpoint(), 16),
                             "walk (s3 large)")
                r["mbps"] = r["bytes"] / r["seconds"] / MB
                big.append(r)
                log(f"s3 latency run {rep}/{a.s3_latency_repeat} 64 MiB "
                    f"objects, concurrency 16: {r['mbps']:.1f} MB/s")
        finally:
            if proxy:
                proxy.stop()
            srv.stop()
        return {"small": small, "large": large, "runs": runs, "big": big}

    # -- 3. GC

    def gc_sql(self, n):
        """Fills a migrated database with a tenant of n objects: by i % 100,
        0-79 in READY snapshots' closures (a quarter of them in two),
        80-84 only in RELEASED snapshots' closures (eligible), 85-86 pinned,
        87-96 unreferenced and old (eligible), 97-99 unreferenced and young
        (inside the grace). Old objects were created 30 days (+ i s) ago.
        One READY snapshot per --gc-per-snapshot objects (at least 4), one
        RELEASED per ten READY."""
        s = max(4, n // self.a.gc_per_snapshot)  # READY snapshots
        r = max(1, s // 10)         # RELEASED snapshots
        return [
            f"INSERT INTO awc.tenants (id) VALUES ('{TENANT}')",
            "CREATE UNLOGGED TABLE public.bench_digests AS SELECT i, "
            f"'sha256:' || encode(sha256(convert_to('{TENANT}/' || i, 'UTF8')),"
            f" 'hex') AS d FROM generate_series(1, {n}) i",
            "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
            f"last_seen_at) SELECT '{TENANT}', d, 4096 + (i::bigint * 7919) % 61441, t, "
            "t + ((i * 13) % 3600) * interval '1 second' FROM (SELECT i, d, "
            "CASE WHEN i % 100 >= 97 THEN now() - interval '1 hour' ELSE "
            "now() - interval '30 days' - i * interval '1 second' END AS t "
            "FROM public.bench_digests) x",
            # Snapshot k's root is object 100 (k - 1) + 1, in its closure.
            "INSERT INTO awc.snapshots (id, tenant_id, root_digest, state, "
            "created_at, validated_at) SELECT k, "
            f"'{TENANT}', b.d, 'READY', now() - interval '20 days', now() - "
            f"interval '20 days' FROM generate_series(1, {s}) k JOIN "
            "public.bench_digests b ON b.i = 100 * (k - 1) + 1",
            "INSERT INTO awc.snapshots (id, tenant_id, root_digest, state, "
            "created_at, validated_at, released_at) SELECT "
            f"{s} + j + 1, '{TENANT}', b.d, 'RELEASED', now() - interval "
            "'25 days', now() - interval '25 days', now() - interval '10 days' "
            f"FROM generate_series(0, {r - 1}) j JOIN public.bench_digests b "
            "ON b.i = 100 * j + 80",
            "SELECT setval(pg_get_serial_sequence('awc.snapshots', 'id'), "
            f"{s + r})",
            "INSERT INTO awc.snapshot_objects (snapshot_id, digest) "
            f"SELECT CASE WHEN i % 100 < 80 THEN 1 + (i / 100) % {s} "
            f"ELSE {s} + 1 + (i / 100) % {r} END, d FROM public.bench_digests "
            "WHERE i % 100 < 85 UNION ALL "
            f"SELECT 1 + (i / 100 + 1) % {s}, d FROM public.bench_digests "
            "WHERE i % 100 < 80 AND i % 4 = 0",
            "INSERT INTO awc.gc_pins (tenant_id, digest, reason) SELECT "
            f"'{TENANT}', d, 'operator' FROM public.bench_digests "
            "WHERE i % 100 IN (85, 86)",
            "DROP TABLE public.bench_digests",
            "VACUUM ANALYZE",
            "CHECKPOINT",
        ]

    def copy_db(self, name, template):
        drop_db(name)
        create_db(name, template, strategy="FILE_COPY")

    def gc_part(self):
        a = self.a
        for k in ("PGHOST", "PGPORT", "PGUSER", "PGPASSWORD"):
            if k not in os.environ:
                self.notes.append("GC part skipped: not run under "
                                  "pg_virtualenv (PG* unset)")
                return None
        out = {"sizes": a.gc_sizes, "runs": {}, "populate": {}, "db": {}}
        admin = Session("postgres")
        pg_cpu = PgCpu(PgCpu._stat(int(admin.query(
            "SELECT pg_backend_pid()")))[0])
        for n in a.gc_sizes:
            tmpl = f"awc_sbench_tmpl_{n}"
            drop_db(tmpl)
            subprocess.run(["createdb", tmpl], check=True)
            env = self.env(DATABASE_URL=db_url(tmpl))
            run_json([self.prog, "migrate"], env, "migrate")
            log(f"gc: filling a tenant with {n} objects")
            t0 = time.monotonic()
            psql(tmpl, *self.gc_sql(n))
            out["populate"][n] = time.monotonic() - t0
            out["db"][n] = psql(
                tmpl,
                "SELECT (SELECT count(*) FROM awc.objects) || '|' || "
                "(SELECT count(*) FROM awc.snapshot_objects) || '|' || "
                "(SELECT count(*) FROM awc.snapshots) || '|' || "
                "(SELECT count(*) FROM awc.gc_pins) || '|' || "
                "pg_size_pretty(pg_database_size(current_database())) || '|' "
                "|| pg_size_pretty(pg_total_relation_size('awc.objects')) || "
                "'|' || pg_size_pretty(pg_total_relation_size("
                "'awc.snapshot_objects'))").split("|")
            out["runs"][n] = []
        # Interleaved: every size once per repetition.
        for rep in range(1, a.repeat + 1):
            for n in a.gc_sizes:
                db = "awc_sbench_gc"
                self.copy_db(db, f"awc_sbench_tmpl_{n}")
                store = os.path.join(self.workdir, "gc-cas")
                shutil.rmtree(store, ignore_errors=True)
                env = self.env(DATABASE_URL=db_url(db),
                               AWC_CAS_URL=f"file://{store}",
                               AWC_GC_BATCH_SIZE=a.gc_batch)
                pg0 = pg_cpu.now()
                r = run_json([self.prog, "gc", "--tenant", TENANT], env, "gc")
                pg_cpu.settle(db)
                r["pg_cpu"] = pg_cpu.now() - pg0
                r["others"] = max(0.0, (r["_busy"] - r["_cpu"] - r["pg_cpu"])
                                  / r["_wall"])
                out["runs"][n].append(r)
                log(f"gc run {rep}/{a.repeat} n={n:<8} dry run "
                    f"{r['dry_seconds']:.3f} s, full epoch "
                    f"{r['full_seconds']:.3f} s (plan {r['plan']:.3f}, "
                    f"deleted {r['deleted']})")
                if rep == a.repeat:
                    out.setdefault("explain", {})[n] = subprocess.run(
                        [self.prog, "explain-plan", "--tenant", TENANT],
                        env=env, capture_output=True, text=True,
                        check=True).stdout.rstrip("\n").split("\n")
                drop_db(db)
                shutil.rmtree(store, ignore_errors=True)
        for n in a.gc_sizes:
            drop_db(f"awc_sbench_tmpl_{n}")
        admin.close()
        return out


# ------------------------------------------------------------------ report

def machine_info(a):
    model, flags = "?", []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1].split()
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])

    def first_line(args):
        try:
            r = subprocess.run(args, capture_output=True, text=True)
            return (r.stdout or r.stderr).strip().split("\n")[0]
        except OSError:
            return "?"

    s3rver_version = "not installed"
    pkg = os.path.join(os.path.dirname(os.path.dirname(a.s3rver)),
                       "package.json")
    try:
        with open(pkg) as f:
            s3rver_version = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        pass
    pg = "not used"
    if "PGHOST" in os.environ:
        pg = psql("postgres", "SELECT version()").split(" on ")[0] + ", " + \
            psql("postgres",
                 "SELECT string_agg(name || '=' || current_setting(name), ' ' "
                 "ORDER BY name) FROM pg_settings WHERE name IN ('fsync', "
                 "'shared_buffers', 'work_mem', 'jit', "
                 "'max_parallel_workers_per_gather', 'synchronous_commit')")
    fs = first_line(["stat", "-f", "-c", "%T", a.tmpdir or tempfile.gettempdir()])
    commit = subprocess.run(["git", "describe", "--always", "--dirty"],
                            capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__)))
    commit = os.environ.get("BENCH_COMMIT") or commit.stdout.strip() or "?"
    # Uncommitted changes to what is measured (bench/ itself is not).
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", ":/src", ":/migrations",
         ":/CMakeLists.txt"], capture_output=True, text=True,
        cwd=os.path.dirname(os.path.abspath(__file__))).stdout.split("\n")
    changed = [line[3:] for line in changed if line.strip()]
    return [
        f"date        {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"commit      {commit}; uncommitted changes in "
        f"src/, migrations/: {', '.join(changed) if changed else 'none'}",
        f"machine     {os.cpu_count()} CPUs ({model}; sha_ni "
        f"{'yes' if 'sha_ni' in flags else 'no'}), {mem_kb / 1048576:.1f} GiB, "
        f"Linux {platform.release()}",
        f"scratch     {a.tmpdir or tempfile.gettempdir()} ({fs})",
        f"postgresql  {pg}",
        f"s3rver      {s3rver_version} on node {first_line(['node', '--version'])}"
        " (--silent), loopback",
        f"hashers     {first_line(['sha256sum', '--version'])}; "
        f"{first_line(['openssl', 'version'])}",
        f"load avg    {' '.join(open('/proc/loadavg').read().split()[0:3])} "
        "at start",
    ]


def summarize_explain(lines):
    """One line: the eligible scan's filter, the loops of a per-object
    snapshot_objects probe, the statement's buffers and execution time."""
    filt, loops, bufs, exe = "?", "", "?", "?"
    anti = [line.strip().lstrip("-> ").split("  (")[0] for line in lines
            if "Anti Join" in line]
    if anti:
        filt = f"{len(anti)} anti-joins ({', '.join(sorted(set(anti)))})"
    for i, line in enumerate(lines):
        t = line.strip()
        if t.startswith("Filter:") and "SubPlan" in t and filt == "?":
            filt = t[len("Filter: "):]
        if "snapshot_objects_digest_idx" in t and "loops=" in t:
            loops = t[t.rindex("loops=") + 6:].rstrip(")")
        if t.startswith("Buffers:") and bufs == "?" and i == 1:
            bufs = t[len("Buffers: "):]
        if t.startswith("Execution Time:"):
            exe = t[len("Execution Time: "):]
    probe = f", snapshot_objects probed {loops} times" if loops else ""
    return f"{filt}{probe}; {bufs}; {exe}"


def report(a, header, notes, file_r, s3_r, gc_r, scale_r=None, s3l_r=None):
    out = ["awc-worker storage benchmarks (bench/storage_bench.py, "
           "make bench-storage)", ""]
    out += header
    out += [f"parameters  repeat={a.repeat}; medians of the runs, every run "
            "listed; MB = 10^6 bytes", ""]
    for n in notes:
        out.append(f"note: {n}")
    if notes:
        out.append("")

    if file_r:
        g = file_r["gen"]
        out += [
            "1. Validation throughput, file:// store.",
            f"   tree: {g['objects']} objects, {file_r['bytes']} bytes "
            f"({file_r['bytes'] / 2**20:.0f} MiB): {g['large_blobs']} blobs of "
            f"{a.large_mib} MiB, {g['small_blobs']} blobs of 4-64 KiB, "
            f"{g['manifests']} manifests (root -> 8 -> 64 leaves);",
            f"   written with the store's Put (fsync each) in {g['seconds']:.1f} s.",
            "   walk       = cas::WalkClosure (awc-bench-storage walk), the "
            "validate handler's walk; its own clock",
            "   hash-files = read every object file in 64 KiB chunks + "
            "digest::Sha256 (OpenSSL), no store, no closure",
            "   sha256sum  = find DIR -type f -print0 | xargs -0 sha256sum "
            "(GNU coreutils, its own SHA-256 code)",
            "   openssl    = find DIR -type f -print0 | xargs -0 openssl dgst "
            "-sha256 -r",
            "   all four read exactly the same files (every object of the "
            "closure, manifests included).",
            ""]
        hdr = (f"   {'cache':<5} | {'walk MB/s':>9} | {'hash-files':>10} | "
               f"{'sha256sum':>9} | {'openssl':>7} | {'walk/sha256sum':>14} | "
               f"{'walk/hash-files':>15}")
        out += [hdr, "   " + "-" * (len(hdr) - 3)]
        for mode in file_r["modes"]:
            rr = file_r["runs"][mode]
            m = {k: med([x["mbps"] for x in rr[k]]) for k in rr}
            out.append(
                f"   {mode:<5} | {m['walk']:>9.0f} | {m['hash-files']:>10.0f} | "
                f"{m['sha256sum']:>9.0f} | {m['openssl']:>7.0f} | "
                f"{m['walk'] / m['sha256sum']:>14.2f} | "
                f"{m['walk'] / m['hash-files']:>15.2f}")
        out += ["", "   every run: MB/s (CPU seconds of the process, other = "
                "CPUs busy outside it)"]
        for mode in file_r["modes"]:
            for k, rr in file_r["runs"][mode].items():
                out.append(f"   {mode:<5} {k:<10} " + "  ".join(
                    f"{x['mbps']:6.0f} ({x['cpu']:.2f} s, other {x['others']:.2f})"
                    for x in rr))
        out.append("")

    if s3_r:
        g = s3_r["gen"]
        out += [
            "2. Validation throughput, s3:// store against s3rver on loopback.",
            f"   tree: {g['objects']} objects, {g['bytes']} bytes "
            f"({g['bytes'] / 2**20:.0f} MiB): {g['large_blobs']} blob(s) of "
            f"{a.large_mib} MiB, {g['small_blobs']} of 4-64 KiB, "
            f"{g['manifests']} manifests;",
            f"   uploaded with the store's Put, one object at a time, in "
            f"{g['seconds']:.1f} s (s3rver CPU {g['server_cpu']:.1f} s).",
            "   walk = cas::WalkClosure; s3rver CPU = its CPU seconds during "
            "the walk / the walk's seconds.",
            ""]
        hdr = (f"   {'AWC_S3_MAX_CONCURRENCY':<22} | {'MB/s':>6} | "
               f"{'objects/s':>9} | {'seconds':>7} | {'client CPU':>10} | "
               f"{'s3rver CPU':>10} | {'in flight':>9} | {'conns':>5}")
        out += [hdr, "   " + "-" * (len(hdr) - 3)]
        for name, rr in s3_r["runs"].items():
            label = name if name != "default" else \
                f"default ({rr[0]['parallelism']})"
            out.append(
                f"   {label:<22} | {med([x['mbps'] for x in rr]):>6.1f} | "
                f"{med([x['objps'] for x in rr]):>9.0f} | "
                f"{med([x['seconds'] for x in rr]):>7.2f} | "
                f"{med([x['_cpu'] for x in rr]):>8.2f} s | "
                f"{med([x['server_cpu'] / x['seconds'] for x in rr]):>10.2f} | "
                f"{max(x['max_in_flight'] for x in rr):>9} | "
                f"{max(x['connections'] for x in rr):>5}")
        out += ["", "   every run: MB/s (s3rver CPU, other)"]
        for name, rr in s3_r["runs"].items():
            out.append(f"   {name:<8} " + "  ".join(
                f"{x['mbps']:5.1f} ({x['server_cpu'] / x['seconds']:.2f}, "
                f"{x['others']:.2f})" for x in rr))
        out.append("")

    if gc_r:
        out += [
            "3. GC cost for one tenant (gc::RunSweep in-process, "
            f"AWC_GC_BATCH_SIZE={a.gc_batch}, canary 10, grace 86400 s).",
            "   Mix by i % 100: 80 % in READY snapshots' closures (a quarter "
            "in two), 5 % only in RELEASED ones, 2 % pinned,",
            "   10 % unreferenced and old, 3 % unreferenced and young: 15 % "
            f"eligible. One READY snapshot per {a.gc_per_snapshot} "
            "objects (at least 4), one RELEASED per 10 READY.",
            "   dry run = one RunSweep with dry_run (lock, plan, record; "
            "after a warm-up dry run); full = one whole epoch:",
            "   plan | mark = re-check under row locks + DELETING, per batch "
            "| store = select + DeleteMany (file://, real files)",
            "   | finish = rows removed | canary = live check of the 10 "
            "deleted | complete = epoch, audit, unlock. Seconds.",
            ""]
        hdr = (f"   {'objects':>9} | {'eligible':>8} | {'dry run':>7} | "
               f"{'full':>7} | {'plan':>7} | {'mark':>6} | {'store':>6} | "
               f"{'finish':>6} | {'canary':>6} | {'complete':>8} | "
               f"{'plan us/object':>14}")
        out += [hdr, "   " + "-" * (len(hdr) - 3)]
        for n in gc_r["sizes"]:
            rr = gc_r["runs"][n]
            m = {k: med([x[k] for x in rr]) for k in (
                "dry_seconds", "full_seconds", "plan", "mark", "store_delete",
                "finish", "canary_check", "complete")}
            out.append(
                f"   {n:>9} | {rr[0]['eligible']:>8} | {m['dry_seconds']:>7.3f} | "
                f"{m['full_seconds']:>7.3f} | {m['plan']:>7.3f} | "
                f"{m['mark']:>6.3f} | {m['store_delete']:>6.3f} | "
                f"{m['finish']:>6.3f} | {m['canary_check']:>6.3f} | "
                f"{m['complete']:>8.3f} | {m['plan'] / n * 1e6:>14.2f}")
        sizes = gc_r["sizes"]
        if len(sizes) > 1:
            out.append("")
            out.append("   growth (median plan time ratio / object count "
                       "ratio): " + ", ".join(
                f"{sizes[i]}->{sizes[i + 1]}: x{med([x['plan'] for x in gc_r['runs'][sizes[i + 1]]]) / med([x['plan'] for x in gc_r['runs'][sizes[i]]]):.1f}"
                f" / x{sizes[i + 1] / sizes[i]:.0f}"
                for i in range(len(sizes) - 1)))
        out += ["", "   databases (objects | snapshot_objects | snapshots | "
                "pins | database | awc.objects | awc.snapshot_objects), "
                "fill time:"]
        for n in sizes:
            out.append(f"   {n:>9}: {' | '.join(gc_r['db'][n])}, filled in "
                       f"{gc_r['populate'][n]:.0f} s")
        out += ["", "   every run: warm-up dry run / dry run / full epoch "
                "(its plan) in s, deleted; CPU s of the whole gc program",
                "   run (client + PostgreSQL: warm-up, dry run, filling the "
                "store, full epoch); other = CPUs busy outside both"]
        for n in sizes:
            out.append(f"   {n:>9} " + "  ".join(
                f"{x['dry_first_seconds']:.3f}/{x['dry_seconds']:.3f}/"
                f"{x['full_seconds']:.3f} ({x['plan']:.3f}) {x['deleted']}; "
                f"{x['_cpu']:.2f} + {x['pg_cpu']:.2f}, other {x['others']:.2f}"
                for x in gc_r["runs"][n]))
        if gc_r.get("explain"):
            out += ["", "   The plan statement (gc::sql::kPlan) by size, from "
                    "EXPLAIN (ANALYZE, BUFFERS) after the last run:",
                    "   the filter of the eligible objects' scan (a 'hashed "
                    "SubPlan' is built once, a plain 'SubPlan' runs once",
                    "   per object), the loops of the snapshot_objects "
                    "probe, shared buffers touched, execution time."]
            for n in sizes:
                lines = gc_r["explain"][n]
                out.append(f"   {n:>9}: " + summarize_explain(lines))
            n = sizes[-1]
            out += ["", f"   EXPLAIN (ANALYZE, BUFFERS) of gc::sql::kPlan at "
                    f"{n} objects (custom plan, as the sweep's unnamed "
                    "statement gets; rolled back):", ""]
            out += ["   " + line for line in gc_r["explain"][n]]
    if scale_r:
        out += [
            "4. The walk at scale: memory and objects/s (awc-bench-storage scale).",
            f"   tree: N tiny blobs (about 20 bytes) under manifests of "
            f"{a.scale_fanout} entries (root -> mids -> leaves -> blobs);",
            "   file:// trees are written once as plain files and walked warm; "
            f"above {a.scale_file_max} objects the store is memory:// in the "
            "walking process",
            "   (ten million files would need ~40 GB of 4 KiB blocks), its "
            "objects part of the idle size.",
            "   idle = VmRSS before the walk (store open, tree made); peak = "
            "VmHWM after it, reset just before it",
            "   (/proc/self/clear_refs); old = the baseline build "
            "(BENCH_BASELINE_BUILD), new = this tree.",
            "   goals: peak - idle <= 64 MiB at 10M objects; new objects/s >= "
            "0.90 x old at 1M.",
            ""]
        hdr = (f"   {'objects':>9} | {'store':<6} | {'walk':<4} | "
               f"{'objects/s':>9} | {'seconds':>8} | {'idle MiB':>8} | "
               f"{'peak MiB':>8} | {'peak-idle':>9} | goal")
        out += [hdr, "   " + "-" * (len(hdr) - 3)]
        for r in scale_r:
            for name, runs in r["runs"].items():
                ops = med([x["objects"] / x["seconds"] for x in runs])
                secs = med([x["seconds"] for x in runs])
                idle = med([x["idle_kib"] / 1024 for x in runs])
                peak = med([x["peak_kib"] / 1024 for x in runs])
                grow = med([(x["peak_kib"] - x["idle_kib"]) / 1024 for x in runs])
                goal = ""
                if name == "new":
                    goal = f"<= 64 MiB: {'met' if grow <= 64 else 'NOT met'}"
                    old = r["runs"].get("old")
                    if old:
                        ratio = ops / med([x["objects"] / x["seconds"] for x in old])
                        goal += f"; {ratio:.2f} x old"
                        if r["n"] == 1000000:
                            goal += (" (>= 0.90: "
                                     f"{'met' if ratio >= 0.90 else 'NOT met'})")
                out.append(f"   {r['runs'][name][0]['objects']:>9} | "
                           f"{r['store']:<6} | {name:<4} | {ops:>9.0f} | "
                           f"{secs:>8.2f} | {idle:>8.1f} | {peak:>8.1f} | "
                           f"{grow:>9.1f} | {goal}")
        out += ["", "   every run: objects/s (peak - idle MiB; CPU s of the "
                "walk; other = CPUs busy outside the process)"]
        for r in scale_r:
            for name, runs in r["runs"].items():
                cells = "  ".join(
                    f"{x['objects'] / x['seconds']:.0f} ({(x['peak_kib'] - x['idle_kib']) / 1024:.1f}; "
                    f"{x['cpu_user'] + x['cpu_sys']:.2f} s, other {x['others']:.2f})"
                    for x in runs)
                out.append(f"   {r['n']:>9} {name:<4} {cells}")
        gens = ", ".join(f"{r['n']}: {r['gen']['gen_seconds']:.0f} s"
                         for r in scale_r)
        out += [f"   trees made in {gens}.", ""]
    if s3l_r:
        g = s3l_r["small"]
        out += [
            "5. Validation over s3:// at a real object store's latency: "
            "s3rver behind a loopback proxy",
            f"   (bench/storage_bench.py LatencyProxy) that holds the first "
            f"bytes of every response {a.s3_ttfb_ms} ms (time to first byte).",
            f"   tree: {g['objects']} objects, {g['bytes']} bytes: "
            f"{g['small_blobs']} blobs of 4-64 KiB under {g['manifests']} "
            "manifests; walk = cas::WalkClosure.",
            "   goals: objects/s at 16 >= 12 x at 1; no collapse at 64 "
            "(at least the figure at 16).",
            ""]
        hdr = (f"   {'AWC_S3_MAX_CONCURRENCY':<22} | {'objects/s':>9} | "
               f"{'x conc. 1':>9} | {'seconds':>7} | {'in flight':>9} | "
               f"{'conns':>5} | {'client ms/obj':>13} | {'s3rver CPU':>10} | "
               "goal")
        out += [hdr, "   " + "-" * (len(hdr) - 3)]
        one = med([x["objps"] for x in s3l_r["runs"][a.s3_concurrency[0]]])
        at16 = None
        for c in a.s3_concurrency:
            rs = s3l_r["runs"][c]
            ops = med([x["objps"] for x in rs])
            ratio = ops / one
            goal = ""
            if c == 16:
                at16 = ops
                goal = f">= 12: {'met' if ratio >= 12 else 'NOT met'}"
            elif c == 64 and at16:
                goal = (f">= at 16: "
                        f"{'met' if ops >= 0.95 * at16 else 'NOT met'}")
            out.append(
                f"   {c:<22} | {ops:>9.0f} | {ratio:>9.1f} | "
                f"{med([x['seconds'] for x in rs]):>7.2f} | "
                f"{max(x.get('max_in_flight', 0) for x in rs):>9} | "
                f"{max(x.get('connections', 0) for x in rs):>5} | "
                f"{med([(x['cpu_user'] + x['cpu_sys']) * 1000 / x['objects'] for x in rs]):>13.3f} | "
                f"{med([x['server_cpu'] / x['seconds'] for x in rs]):>10.2f} | "
                f"{goal}")
        out += ["", "   client ms/obj = CPU of the walking process per object; "
                "s3rver CPU = its CPUs busy during the walk.",
                "   every run: objects/s"]
        for c in a.s3_concurrency:
            out.append(f"   {c:>4}  " + "  ".join(
                f"{x['objps']:.0f}" for x in s3l_r["runs"][c]))
        L = s3l_r["large"]
        out += ["",
                f"   64 MiB objects: {L['large_blobs']} blobs of 64 MiB "
                f"({L['bytes'] / 2**20:.0f} MiB), AWC_S3_MAX_CONCURRENCY=16: "
                f"{med([x['mbps'] for x in s3l_r['big']]):.1f} MB/s "
                f"(every run: " + ", ".join(
                    f"{x['mbps']:.1f}" for x in s3l_r["big"]) + ")", ""]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--parts", default=os.environ.get(
        "BENCH_STORAGE_PARTS", "file s3 gc scale s3-latency"),
        help="which parts (BENCH_STORAGE_PARTS, 'file s3 gc scale "
             "s3-latency')")
    ap.add_argument("--repeat", type=int,
                    default=env_int("BENCH_STORAGE_REPEAT", 3))
    ap.add_argument("--file-mib", type=int,
                    default=env_int("BENCH_FILE_MIB", 256))
    ap.add_argument("--s3-mib", type=int, default=env_int("BENCH_S3_MIB", 64))
    ap.add_argument("--large-mib", type=int,
                    default=env_int("BENCH_LARGE_MIB", 32))
    ap.add_argument("--cold", default=os.environ.get("BENCH_COLD", "auto"),
                    choices=["auto", "off"],
                    help="cold-cache file runs when drop_caches is writable "
                         "(BENCH_COLD, auto)")
    ap.add_argument("--gc-sizes", type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_GC_SIZES", [10000, 100000, 1000000]))
    ap.add_argument("--gc-per-snapshot", type=int,
                    default=env_int("BENCH_GC_OBJECTS_PER_SNAPSHOT", 10000),
                    help="objects per READY snapshot (BENCH_GC_OBJECTS_PER_"
                         "SNAPSHOT, 10000)")
    ap.add_argument("--gc-batch", type=int,
                    default=env_int("BENCH_GC_BATCH", 1000))
    ap.add_argument("--scale-sizes",
                    type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_SCALE_SIZES",
                                     [100000, 1000000, 10000000]))
    ap.add_argument("--scale-file-max", type=int,
                    default=env_int("BENCH_SCALE_FILE_MAX", 1000000),
                    help="largest scale tree over file:// (BENCH_SCALE_FILE_"
                         "MAX); larger ones use memory://")
    ap.add_argument("--scale-fanout", type=int,
                    default=env_int("BENCH_SCALE_FANOUT", 1000))
    ap.add_argument("--scale-repeat", type=int,
                    default=env_int("BENCH_SCALE_REPEAT", 3),
                    help="runs per file:// scale size (memory:// ones run once)")
    ap.add_argument("--s3-ttfb-ms", type=int,
                    default=env_int("BENCH_S3_TTFB_MS", 20))
    ap.add_argument("--s3-concurrency",
                    type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_S3_CONCURRENCY", [1, 4, 16, 64]))
    ap.add_argument("--s3-small-objects", type=int,
                    default=env_int("BENCH_S3_SMALL_OBJECTS", 1000))
    ap.add_argument("--s3-large-count", type=int,
                    default=env_int("BENCH_S3_LARGE_COUNT", 16),
                    help="objects of 64 MiB for the MB/s figure")
    ap.add_argument("--s3-latency-repeat", type=int,
                    default=env_int("BENCH_S3_LATENCY_REPEAT", 3))
    ap.add_argument("--baseline-build",
                    default=os.environ.get("BENCH_BASELINE_BUILD", ""),
                    help="a bench build of the code to compare the scale walk "
                         "with (BENCH_BASELINE_BUILD)")
    ap.add_argument("--s3rver", default=os.environ.get("AWC_S3RVER") or
                    os.path.join(os.path.dirname(here), "build-deps",
                                 "node_modules", "s3rver", "bin", "s3rver.js"))
    ap.add_argument("--tmpdir", default=os.environ.get("BENCH_TMPDIR", ""),
                    help="scratch directory for the stores (BENCH_TMPDIR; "
                         "default $TMPDIR or /tmp)")
    ap.add_argument("--results", default=os.environ.get(
        "BENCH_STORAGE_RESULTS", ""),
        help="results file (BENCH_STORAGE_RESULTS; default "
             "bench/results/storage-<date>.txt)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    import atexit
    atexit.register(_kill_live)
    results = a.results or os.path.join(
        here, "results", f"storage-{datetime.date.today().isoformat()}.txt")
    parts = a.parts.replace(",", " ").split()

    started = time.monotonic()
    bench = Bench(a)
    header = machine_info(a)
    log("\n  ".join(["machine:"] + header))
    try:
        file_r = bench.file_part() if "file" in parts else None
        s3_r = bench.s3_part() if "s3" in parts else None
        gc_r = bench.gc_part() if "gc" in parts else None
        scale_r = bench.scale_part() if "scale" in parts else None
        s3l_r = bench.s3_latency_part() if "s3-latency" in parts else None
    finally:
        shutil.rmtree(bench.workdir, ignore_errors=True)

    write_report(report(a, header, bench.notes, file_r, s3_r, gc_r, scale_r,
                        s3l_r),
                 started,
                 results)


if __name__ == "__main__":
    main()
