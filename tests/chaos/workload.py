"""The chaos suite's producer: what a control plane would do to awc-worker.

On the file:// fleet's database: `awcctl import` of generated trees (real
files, real digests; files shared between trees so that imports deduplicate
and GC has shared objects to keep, and whole directories shared between
trees so that validations trust them and imports reuse them by their top), snapshots a careless producer makes
(a root that was never uploaded, a root that is no manifest), workspace TTL
moves, scrub / retain / expire / gc_sweep jobs on random subjects, fenced
test_effect jobs, deliberately malformed jobs, and now and then a flipped
byte in, or the loss of, a READY snapshot's own object (decay for scrub to
find). A replica of the store (the fleet's repair store) is brought up to
date now and then by copying what the store has that it lacks, as an
asynchronous replication would: an object damaged before its copy was made
reaches the replica damaged, one damaged after it can be repaired. On the
memory:// fleet's database: test_effect, test_fail, test_retry and
test_crash jobs (queue semantics only; that store holds nothing).

Every job the producer inserts is recorded, in the same statement, in
awc_test.enqueued with what it expects ("ok", or "fail:<dead_reason>:<part
of last_error>"); every snapshot it makes in awc_test.expect_snapshot. A
statement that fails (the database is being crashed) is counted and
dropped: the suite checks what was committed.
"""

import hashlib
import json
import os
import shutil
import subprocess

from pgcluster import PgError, client_env

TENANTS = ["acme", "globex", "initech"]
# Tenants whose store directories are laid out against the store: one is a
# link to the first tenant's directory, every fan-out of the other a link
# to the second's (docs/store.md, "The file store's layout"). Reconciling
# and collecting them must register and delete nothing.
HOSTILE_TENANTS = ["hostile-dir", "hostile-fanout"]
POLICIES = ['{"keep_last": 2}', '{"keep_last": 1, "keep_within_secs": 2}',
            '{"keep_within_secs": 4}', None]
SCHEMA = """
CREATE SCHEMA IF NOT EXISTS awc_test;
CREATE TABLE IF NOT EXISTS awc_test.effects (
  job_id bigint NOT NULL, lease_token bigint NOT NULL,
  attempt integer NOT NULL, at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS awc_test.enqueued (
  job_id bigint PRIMARY KEY, expect text NOT NULL);
CREATE TABLE IF NOT EXISTS awc_test.expect_snapshot (
  snapshot_id bigint PRIMARY KEY, expect text NOT NULL,
  own_digest text);
"""


def q(text):
    """An SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def digest_of(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def object_path(store_root, tenant, digest):
    hexd = digest[len("sha256:"):]
    return os.path.join(store_root, tenant, "sha256", hexd[:2], hexd)


def enqueue_sql(kind, payloads, expect, max_attempts=5, delay_secs=0):
    """One statement inserting `kind` jobs and their expectations."""
    values = ", ".join(q(json.dumps(p)) for p in payloads)
    return (f"WITH j AS (INSERT INTO awc.jobs (kind, payload, max_attempts, "
            f"run_at) SELECT {q(kind)}, p::jsonb, {max_attempts}, "
            f"now() + interval '{delay_secs} seconds' "
            f"FROM unnest(ARRAY[{values}]::text[]) p RETURNING id) "
            f"INSERT INTO awc_test.enqueued SELECT id, {q(expect)} FROM j")


class Producer:
    def __init__(self, rng, cluster, file_db, mem_db, store_root, awcctl,
                 conf, workdir, stats, replica_root):
        self.rng = rng
        self.pg = cluster
        self.file_db = file_db
        self.mem_db = mem_db
        self.store = store_root
        self.replica = replica_root
        self.awcctl = awcctl
        self.trees = os.path.join(workdir, "trees")
        os.mkdir(self.trees)
        self.stats = stats  # collections.Counter
        self.imports = []   # running (Popen, tree dir, own digest)
        self.import_errors = []  # stderr tails of failed imports
        self.pending_expect = []  # (snapshot id, own digest) to record
        self.n = 0
        self.crashes = 0  # test_crash jobs enqueued
        # While the driver has the store's or the replica's volume
        # unmounted, the producer neither imports nor touches the store.
        self.store_away = False
        # Per tenant, a pool of files trees draw from (dedup, shared objects).
        self.pool = {t: [rng.randbytes(rng.choice([0, 1, 90, 700, 4000,
                                                   20000, 65536]))
                         for _ in range(40)] for t in TENANTS}
        # Per tenant, directories that many trees include unchanged (shared
        # subtrees: the same manifests under live, released and half-deleted
        # snapshots): (relative path, byte content) of each file.
        self.subtrees = {t: [self._subtree(rng, t, k) for k in range(4)]
                         for t in TENANTS}
        self.import_env = client_env({
            "DATABASE_URL": cluster.url(file_db),
            "AWC_CAS_URL": "file://" + store_root, "AWC_CONFIG": conf})

    def _subtree(self, rng, tenant, k):
        files = []
        for i in rng.sample(range(len(self.pool[tenant])), rng.randint(2, 6)):
            sub = rng.choice(["", "inner"])
            files.append((os.path.join(sub, f"s{i}"), self.pool[tenant][i]))
        return files

    # ---------------------------------------------------------------- setup
    def setup(self):
        for db in (self.file_db, self.mem_db):
            self.pg.psql(db, SCHEMA)
        values = ", ".join(f"({q(t)})" for t in TENANTS + HOSTILE_TENANTS)
        self.pg.psql(self.file_db, f"INSERT INTO awc.tenants (id) VALUES "
                     f"{values} ON CONFLICT DO NOTHING")
        os.symlink(TENANTS[0], os.path.join(self.store, HOSTILE_TENANTS[0]))
        fanouts = os.path.join(self.store, HOSTILE_TENANTS[1], "sha256")
        os.makedirs(fanouts)
        for i in range(256):
            os.symlink(f"../../{TENANTS[1]}/sha256/{i:02x}",
                       os.path.join(fanouts, f"{i:02x}"))
        for t in TENANTS:
            for policy in POLICIES[:2]:
                self._new_workspace(t, policy)

    def _new_workspace(self, tenant, policy):
        pol = "NULL" if policy is None else q(policy) + "::jsonb"
        self.pg.psql(self.file_db, "INSERT INTO awc.workspaces (tenant_id, "
                     f"retention) VALUES ({q(tenant)}, {pol})")

    # ------------------------------------------------------------- helpers
    def _exec(self, db, sql, what):
        try:
            rows = self.pg.psql(db, sql)
            self.stats[what] += 1
            return rows
        except PgError:
            self.stats["producer statements refused (database down)"] += 1
            return None

    def _enqueue(self, db, kind, payloads, expect="ok", max_attempts=5,
                 delay_secs=0):
        if payloads:
            self._exec(db, enqueue_sql(kind, payloads, expect, max_attempts,
                                       delay_secs), "enqueue statements")

    def _ids(self, sql):
        rows = self._exec(self.file_db, sql, "producer reads")
        return [int(r[0]) for r in rows or []]

    def _pick(self, items, k):
        return self.rng.sample(items, min(k, len(items)))

    # ------------------------------------------------------------- imports
    def start_import(self):
        if self.store_away:
            return
        rng = self.rng
        self.n += 1
        tenant = rng.choice(TENANTS)
        tree = os.path.join(self.trees, f"import-{self.n}")
        for i in rng.sample(range(len(self.pool[tenant])), rng.randint(3, 14)):
            sub = rng.choice(["", "lib", "lib/deep", "docs"])
            os.makedirs(os.path.join(tree, sub), exist_ok=True)
            with open(os.path.join(tree, sub, f"f{i}"), "wb") as f:
                f.write(self.pool[tenant][i])
        for k in rng.sample(range(4), rng.choice([0, 1, 1, 2, 3])):
            for rel, data in self.subtrees[tenant][k]:
                path = os.path.join(tree, "vendor", f"v{k}", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
        own = rng.randbytes(rng.randint(1, 3000)) + f"#{self.n}".encode()
        os.makedirs(tree, exist_ok=True)
        with open(os.path.join(tree, "own"), "wb") as f:
            f.write(own)
        args = [self.awcctl, "import", "--tenant", tenant]
        ws = self._ids("SELECT id FROM awc.workspaces WHERE tenant_id = "
                       f"{q(tenant)} AND state = 'ACTIVE' ORDER BY id")
        if ws and rng.random() < 0.85:
            args += ["--workspace", str(rng.choice(ws))]
        p = subprocess.Popen(args + [tree], env=self.import_env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.imports.append((p, tree, digest_of(own)))
        self.stats["imports started"] += 1

    def poll_imports(self, wait=False):
        still = []
        for p, tree, own in self.imports:
            if p.poll() is None and not wait:
                still.append((p, tree, own))
                continue
            out, err = p.communicate()
            shutil.rmtree(tree, ignore_errors=True)
            if p.returncode == 0 and out.strip().isdigit():
                self.stats["imports completed"] += 1
                self.pending_expect.append((int(out.strip()), own))
            else:
                self.stats["imports failed"] += 1
                self.import_errors.append(
                    " ".join(err.split())[-300:])
        self.imports = still
        left = []
        for sid, own in self.pending_expect:
            if self._exec(self.file_db, "INSERT INTO awc_test.expect_snapshot "
                          f"VALUES ({sid}, 'good', {q(own)}) "
                          "ON CONFLICT DO NOTHING", "producer writes") is None:
                left.append((sid, own))
        self.pending_expect = left

    # ------------------------------------------------ careless producers
    def bad_snapshot(self):
        if self.store_away:
            return
        rng = self.rng
        tenant = rng.choice(TENANTS)
        if rng.random() < 0.5:
            root = "sha256:" + rng.randbytes(32).hex()
            expect, register = "failed:missing_object", ""
        else:
            data = b"not a manifest " + rng.randbytes(64)
            root = digest_of(data)
            path = object_path(self.store, tenant, root)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".chaos-tmp", "wb") as f:
                f.write(data)
            os.rename(path + ".chaos-tmp", path)
            expect = "failed:malformed_manifest"
            register = ("INSERT INTO awc.objects (tenant_id, digest, size) "
                        f"VALUES ({q(tenant)}, {q(root)}, {len(data)}) "
                        "ON CONFLICT (tenant_id, digest) DO UPDATE SET "
                        "last_seen_at = now() WHERE awc.objects.state = "
                        "'LIVE';")
        self._exec(self.file_db, f"BEGIN; {register} "
                   "WITH s AS (INSERT INTO awc.snapshots (tenant_id, "
                   f"root_digest) VALUES ({q(tenant)}, {q(root)}) "
                   "RETURNING id), e AS (INSERT INTO awc_test.expect_snapshot "
                   f"SELECT id, {q(expect)}, NULL FROM s), j AS ("
                   "INSERT INTO awc.jobs (kind, payload) SELECT "
                   "'snapshot_validate', jsonb_build_object('snapshot_id', id) "
                   "FROM s RETURNING id) INSERT INTO awc_test.enqueued "
                   "SELECT id, 'ok' FROM j; COMMIT;", "careless snapshots")

    def decay(self):
        """Flips a byte of, or deletes, a READY snapshot's own object (no
        other snapshot has it), after recording that the snapshot is
        expected to decay ('decayed' or 'lost')."""
        if self.store_away:
            return
        rows = self._exec(self.file_db, "SELECT e.snapshot_id, s.tenant_id, "
                          "e.own_digest FROM awc_test.expect_snapshot e JOIN "
                          "awc.snapshots s ON s.id = e.snapshot_id WHERE "
                          "s.state = 'READY' AND e.expect = 'good' ORDER BY 1",
                          "producer reads")
        if not rows:
            return
        sid, tenant, own = self.rng.choice(rows)
        lose = self.rng.random() < 0.4
        how = "lost" if lose else "decayed"
        if self._exec(self.file_db, "UPDATE awc_test.expect_snapshot SET "
                      f"expect = '{how}' WHERE snapshot_id = {sid}",
                      "producer writes") is None:
            return
        path = object_path(self.store, tenant, own)
        if lose:
            os.unlink(path)
            self.stats["objects lost"] += 1
            return
        with open(path, "r+b") as f:
            b = f.read(1)
            f.seek(0)
            f.write(bytes([b[0] ^ 0x5A]))
        self.stats["objects decayed"] += 1

    def replicate(self):
        """Copies into the replica every object of the store it lacks, as
        the store holds it now (a damaged one damaged)."""
        if self.store_away:
            return
        copied = 0
        for tenant in TENANTS:
            top = os.path.join(self.store, tenant)
            for d, _, files in os.walk(top):
                for name in files:
                    if len(name) != 64:  # a write in progress, a marker
                        continue
                    src = os.path.join(d, name)
                    dst = os.path.join(self.replica,
                                       os.path.relpath(src, self.store))
                    if os.path.exists(dst):
                        continue
                    try:
                        with open(src, "rb") as f:
                            data = f.read()
                    except FileNotFoundError:  # GC deleted it meanwhile
                        continue
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    with open(dst + ".tmp", "wb") as f:
                        f.write(data)
                    os.rename(dst + ".tmp", dst)
                    copied += 1
        self.stats["objects copied to the replica"] += copied

    # ---------------------------------------------------------------- jobs
    def storage_jobs(self):
        rng = self.rng
        ready = self._ids("SELECT id FROM awc.snapshots WHERE state = 'READY'")
        allsnap = self._ids("SELECT id FROM awc.snapshots")
        ws = self._ids("SELECT id FROM awc.workspaces")
        self._enqueue(self.file_db, "snapshot_scrub",
                      [{"snapshot_id": s} for s in self._pick(ready, 6)] +
                      [{"snapshot_id": s} for s in self._pick(allsnap, 1)])
        self._enqueue(self.file_db, "snapshot_retain",
                      [{"snapshot_id": s} for s in self._pick(ready, 2)])
        self._enqueue(self.file_db, "workspace_expire",
                      [{"workspace_id": w} for w in self._pick(ws, 1)])
        if rng.random() < 0.5:
            self._enqueue(self.file_db, "gc_sweep",
                          [{"tenant_id": rng.choice(TENANTS)}])
        if rng.random() < 0.1:
            hostile = [{"tenant_id": rng.choice(HOSTILE_TENANTS)}]
            self._enqueue(self.file_db, "store_reconcile", hostile)
            self._enqueue(self.file_db, "gc_sweep", hostile)

    def workspace_moves(self):
        rng = self.rng
        tenant = rng.choice(TENANTS)
        r = rng.random()
        if r < 0.35:
            self._exec(self.file_db, "INSERT INTO awc.workspaces (tenant_id, "
                       f"retention) VALUES ({q(tenant)}, " +
                       ("NULL" if (p := rng.choice(POLICIES)) is None
                        else q(p) + "::jsonb") + ")", "workspace moves")
            return
        state = "ACTIVE" if r < 0.8 else "EXPIRING"
        ids = self._ids(f"SELECT id FROM awc.workspaces WHERE state = "
                        f"{q(state)} AND tenant_id = {q(tenant)}")
        if not ids:
            return
        w = rng.choice(ids)
        when = "now()" if state == "ACTIVE" else "now() + interval '1 hour'"
        if self._exec(self.file_db, f"UPDATE awc.workspaces SET expires_at = "
                      f"{when} WHERE id = {w}", "workspace moves") is None:
            return
        payload = [{"workspace_id": w}]
        self._enqueue(self.file_db, "workspace_expire", payload)
        self._enqueue(self.file_db, "workspace_expire", payload, delay_secs=3)

    def effect_jobs(self, db, n):
        rng = self.rng
        ms = [0 if r < 0.75 else rng.randint(1, 40) if r < 0.98
              else rng.randint(200, 1500)
              for r in (rng.random() for _ in range(n))]
        self._enqueue(db, "test_effect", [{"ms": m} for m in ms],
                      max_attempts=8)
        if db == self.mem_db and rng.random() < 0.2:
            # The next release's kind, which only its workers run; and a
            # key of a later producer's, which every build ignores.
            self._enqueue(db, "test_next_kind", [{}] * rng.randint(1, 5))
            self._enqueue(db, "test_effect",
                          [{"ms": 0, "added_later": True}], max_attempts=8)

    def doomed_jobs(self):
        """Jobs whose dead letter is the expected end."""
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            self._enqueue(self.mem_db, "test_fail", [{}],
                          "fail:handler_failed:TEST-ERROR-TEXT permanent")
        elif r < 0.5:
            self._enqueue(self.mem_db, "test_retry", [{}],
                          "fail:attempts_exhausted:TEST-ERROR-TEXT transient", max_attempts=2)
        elif r < 0.6 and self.crashes < 2:
            # Each crash costs its worker slot a growing restart delay
            # (crash-loop backoff): a couple make the point.
            self.crashes += 1
            self._enqueue(self.mem_db, "test_crash", [{}],
                          "fail:worker_crashed:its worker died",
                          max_attempts=2)
        elif r < 0.75:
            self._enqueue(self.file_db, "snapshot_scrub",
                          [{"snapshot_id": "one"}], "fail:malformed_payload:malformed payload")
        elif r < 0.9:
            self._enqueue(self.file_db, "snapshot_validate",
                          [{"snapshot_id": 900000000 + self.n}],
                          "fail:subject_missing:does not exist")
        else:
            self._enqueue(self.file_db, "no_such_kind", [{}],
                          "fail:unknown_kind:unknown job kind")
