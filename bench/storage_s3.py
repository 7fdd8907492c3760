"""Parts 2 and 5 of the storage benchmarks (storage_bench.py): validation
throughput over s3:// against s3rver on loopback, with
AWC_S3_MAX_CONCURRENCY=1 and with the default; and the same walk through a
loopback proxy that adds a real object store's time to first byte, at
several concurrencies, with small objects and with 64 MiB ones. Standard
library only.
"""

import os

from bench_common import log
from storage_common import MB, TENANT, run_json
from storage_s3rver import LatencyProxy, S3rver


def s3_settings(endpoint):
    """The daemon's settings for bucket "bench" of s3rver at `endpoint`."""
    return dict(AWC_CAS_URL="s3://bench", AWC_S3_ENDPOINT=endpoint,
                AWC_S3_FORCE_PATH_STYLE="true", AWC_S3_ACCESS_KEY_ID="S3RVER",
                AWC_S3_SECRET_ACCESS_KEY="S3RVER")


def s3rver_data(bench, part, name):
    """(s3rver's script, a new data directory `name` in the work
    directory), or (None, None) with a note that `part` was skipped when
    s3rver is not installed."""
    script = bench.a.s3rver
    if not os.path.exists(script):
        bench.notes.append(f"{part} skipped: s3rver is not installed at "
                          f"{script} (make deps)")
        return None, None
    datadir = os.path.join(bench.workdir, name)
    os.makedirs(datadir)
    return script, datadir


# -- 2. s3://

def s3_part(bench):
    a = bench.a
    script, datadir = s3rver_data(bench, "S3 part", "s3rver-data")
    if not script:
        return None
    srv = S3rver(script, datadir, os.path.join(bench.workdir, "s3rver.log"))
    try:
        srv.create_bucket("bench")
        base = s3_settings(srv.endpoint())
        log(f"s3: uploading a {a.s3_mib} MiB tree to s3rver "
            f"(port {srv.port})")
        s0 = srv.cpu()
        gen = run_json([bench.prog, "gen", "--tenant", TENANT,
                        "--total-mib", str(a.s3_mib), "--large-mib",
                        str(a.large_mib)], bench.env(**base), "gen (s3)")
        gen["server_cpu"] = srv.cpu() - s0
        configs = [("1", "1"), ("default", None)]
        # Warm-up walk (s3rver's JIT, the page cache of its files).
        bench.walk(bench.env(**base), gen["root"])
        runs = {name: [] for name, _ in configs}
        for rep in range(1, a.repeat + 1):
            for name, conc in configs:
                env = bench.env(**base, AWC_S3_MAX_CONCURRENCY=conc)
                s0 = srv.cpu()
                r = bench.walk(env, gen["root"])
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

def s3_latency_part(bench):
    a = bench.a
    script, datadir = s3rver_data(bench, "S3 latency part",
                                  "s3rver-latency-data")
    if not script:
        return None
    # Several s3rver processes serve the one data directory (GETs read its
    # files), so that the store, not one JavaScript thread, keeps up with
    # the client; the first takes the uploads.
    servers = []
    proxy = None
    try:
        for i in range(a.s3_servers):
            servers.append(S3rver(script, datadir, os.path.join(
                bench.workdir, f"s3rver-latency-{i}.log")))
        srv = servers[0]
        srv.create_bucket("bench")
        proxy = LatencyProxy([x.port for x in servers],
                             a.s3_ttfb_ms / 1000.0)

        def servers_cpu():
            return sum(x.cpu() for x in servers)

        def env(endpoint, conc=None):
            return bench.env(**s3_settings(endpoint),
                             AWC_S3_MAX_CONCURRENCY=conc)
        log(f"s3 latency: uploading about {a.s3_small_objects} small "
            "objects (direct to s3rver)")
        # Blobs of 4-64 KiB (34 KiB on average) under 4 x 4 leaves.
        small = run_json([bench.prog, "gen", "--tenant", TENANT,
                          "--total-mib",
                          str(max(1, a.s3_small_objects * 34 // 1024)),
                          "--large-mib", "0", "--fanout", "4"],
                         env(srv.endpoint()), "gen (s3 small)")
        log(f"s3 latency: uploading {a.s3_large_count} objects of 64 MiB")
        large = run_json([bench.prog, "gen", "--tenant", "large",
                          "--total-mib", str(64 * a.s3_large_count),
                          "--large-mib", "64", "--large-share", "1",
                          "--fanout", "1"],
                         env(srv.endpoint()), "gen (s3 large)")
        bench.walk(env(proxy.endpoint()), small["root"])  # warm-up
        runs = {c: [] for c in a.s3_concurrency}
        big = []
        for rep in range(1, a.s3_latency_repeat + 1):
            for c in a.s3_concurrency:
                s0 = servers_cpu()
                r = bench.walk(env(proxy.endpoint(), c), small["root"])
                r["server_cpu"] = servers_cpu() - s0
                r["objps"] = r["objects"] / r["seconds"]
                runs[c].append(r)
                log(f"s3 latency run {rep}/{a.s3_latency_repeat} "
                    f"concurrency {c:>3}: {r['objps']:7.0f} objects/s, "
                    f"{r.get('max_in_flight')} in flight, "
                    f"{r.get('connections')} connections")
            r = run_json([bench.prog, "walk", "--tenant", "large", "--root",
                          large["root"]], env(proxy.endpoint(), 16),
                         "walk (s3 large)")
            r["mbps"] = r["bytes"] / r["seconds"] / MB
            big.append(r)
            log(f"s3 latency run {rep}/{a.s3_latency_repeat} 64 MiB "
                f"objects, concurrency 16: {r['mbps']:.1f} MB/s")
    finally:
        if proxy:
            proxy.stop()
        for x in servers:
            x.stop()
    return {"small": small, "large": large, "runs": runs, "big": big}
