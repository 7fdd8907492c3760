"""The chaos suite's end-of-run checks, on a quiet system (fleets stopped).

Each check appends a violation (a sentence naming the subject) per breach
and counts what it examined. The invariants (docs/ARCHITECTURE.md, "Invariants"):

jobs      every job is COMPLETED or FAILED; a FAILED one either was meant to
          die (its expectation names its dead_reason and last_error) or
          spent its whole attempt budget under the injected faults
          (attempts_exhausted); every job a producer committed is there
          (none lost).
effects   test_effect appends under a lease fence: no effect from a claim
          later than the job's last one (no run after it was recorded), at
          most one per claim, none after a COMPLETED job's finished_at, and
          every COMPLETED job has the effect of its last claim.
closures  READY: the store holds the whole closure, every object hashing to
          its digest with its declared size, and the recorded closure rows,
          object_count and byte_count are exactly it. DEGRADED: the recorded
          bad digests are exactly the closure's bad objects, all pinned.
          FAILED: only snapshots made to fail, with the failure code they
          were made with. No snapshot is left VALIDATING.
repair    a snapshot whose own object the suite damaged or deleted is
          READY only if that object was repaired (an object.repaired
          event) and is whole again, or DEGRADED with it among its bad
          objects; never DEGRADED over an object the replica holds whole.
gc        every object in the closure of a VALIDATING, READY or DEGRADED
          snapshot, or its root, or pinned, is in the store; every LIVE
          inventory row's object is in the store (with its content), unless
          the suite decayed or deleted it; no epoch is left open or ABORTED; every
          reference count is what the recorded DAG gives, and no referenced
          object is anything but LIVE. After the final reconciliation
          and sweeps, every object in the store is in the inventory.
audit     replaying each snapshot's and workspace's audit events from the
          initial state gives its current state; a snapshot released
          without an event of its own was released by its workspace's
          `workspace.expired` (same transaction, same time); every finished
          epoch has exactly one `gc.epoch` event matching it; and every
          event lies within the life (insert to finish) of a job of the
          kind that makes it for that subject (a handler that goes on after
          its job was recorded elsewhere would write one later).
"""

import hashlib
import json
import os
from collections import Counter, defaultdict

from workload import object_path

TERMINAL_EPOCH_VERDICTS = {"COMPLETED": {"completed", "dry_run"},
                           "ABORTED": {"aborted"}, "REFUSED": {"refused"}}
EVENT_JOB_KIND = {"snapshot.validate": "snapshot_validate",
                  "snapshot.scrub": "snapshot_scrub",
                  "snapshot.released": "snapshot_retain",
                  "workspace.expiring": "workspace_expire",
                  "workspace.renewed": "workspace_expire",
                  "workspace.expired": "workspace_expire",
                  "gc.epoch": "gc_sweep",
                  "store.reconcile": "store_reconcile"}
FAULTED = ("decayed", "lost")  # what the suite did to a snapshot's object


def rows(pg, db, sql):
    return pg.psql(db, sql, timeout=600)


def num(text):
    return float(text) if text else None


class Checker:
    def __init__(self, pg, store_root, replica_root=None):
        self.pg = pg
        self.store = store_root
        self.replica = replica_root
        self.violations = []
        self.counts = Counter()
        self.jobs_by = Counter()  # (db, kind, state)
        self.failed_reasons = Counter()

    def bad(self, text):
        self.violations.append(text)

    # ---------------------------------------------------------------- jobs
    def jobs(self, db):
        jobs = {}
        for r in rows(self.pg, db, "SELECT id, kind, state, attempts, "
                      "max_attempts, coalesce(last_error, ''), lease_token, "
                      "extract(epoch FROM finished_at), extract(epoch FROM "
                      "created_at), payload::text, coalesce(dead_reason, '') "
                      "FROM awc.jobs"):
            jobs[int(r[0])] = {
                "kind": r[1], "state": r[2], "attempts": int(r[3]),
                "max": int(r[4]), "error": r[5],
                "token": int(r[6]) if r[6] else None, "finished": num(r[7]),
                "created": num(r[8]), "payload": json.loads(r[9]),
                "dead": r[10]}
        expect = dict((int(a), b) for a, b in
                      rows(self.pg, db, "SELECT * FROM awc_test.enqueued"))
        for jid in expect:
            if jid not in jobs:
                self.bad(f"{db}: job {jid} was enqueued and is gone (lost)")
        for jid, j in sorted(jobs.items()):
            self.counts["jobs checked"] += 1
            self.jobs_by[(db, j["kind"], j["state"])] += 1
            what = f"{db}: job {jid} ({j['kind']})"
            exp = expect.get(jid, "ok")
            if jid not in expect and j["kind"] != "snapshot_validate":
                self.bad(f"{what} was enqueued by no producer")
            if j["state"] not in ("COMPLETED", "FAILED"):
                self.bad(f"{what} is stuck {j['state']} (attempts "
                         f"{j['attempts']}, last_error {j['error']!r})")
                continue
            if j["finished"] is None:
                self.bad(f"{what} is {j['state']} without finished_at")
            if j["attempts"] > j["max"]:
                self.bad(f"{what} ran {j['attempts']} times, max "
                         f"{j['max']}")
            if exp.startswith("fail:"):
                reason, text = exp[5:].split(":", 1)
                if (reason == "worker_crashed" and
                        j["dead"] == "attempts_exhausted" and
                        "lease expired" in j["error"]):
                    # Its worker died with the master (SIGKILLed): no
                    # worker of the host saw the death, its lease ended it.
                    reason, text = "attempts_exhausted", "lease expired"
                if (j["state"] != "FAILED" or j["dead"] != reason or
                        text not in j["error"]):
                    self.bad(f"{what} should have died ({reason}, {text!r});"
                             f" {j['state']} ({j['dead']}) {j['error']!r}")
                else:
                    self.failed_reasons[f"meant to: {reason}, "
                                        f"{text}"] += 1
            elif j["state"] == "FAILED":
                if (j["dead"] in ("attempts_exhausted", "worker_crashed") and
                        j["attempts"] >= j["max"]):
                    self.failed_reasons["attempts spent under faults: " +
                                        j["error"][:60]] += 1
                else:
                    self.bad(f"{what} was dead-lettered ({j['dead']}) at "
                             f"attempt {j['attempts']} of {j['max']}: "
                             f"{j['error']!r}")
        return jobs

    # ------------------------------------------------------------- effects
    def effects(self, db, jobs):
        by_job = defaultdict(list)
        for r in rows(self.pg, db, "SELECT job_id, lease_token, attempt, "
                      "extract(epoch FROM at) FROM awc_test.effects"):
            by_job[int(r[0])].append((int(r[1]), int(r[2]), float(r[3])))
        for jid, j in jobs.items():
            if j["kind"] != "test_effect":
                continue
            effs = by_job.pop(jid, [])
            self.counts["effects checked"] += len(effs)
            what = f"{db}: test_effect job {jid}"
            tokens = Counter(t for t, _, _ in effs)
            for t, n in tokens.items():
                if n > 1:
                    self.bad(f"{what}: {n} effects under one claim {t}")
            for t, attempt, at in effs:
                if j["token"] is not None and t > j["token"]:
                    self.bad(f"{what}: effect of claim {t} after its last "
                             f"claim {j['token']}")
                if attempt > j["attempts"]:
                    self.bad(f"{what}: effect of attempt {attempt}, the job "
                             f"has {j['attempts']}")
                if (j["state"] == "COMPLETED" and j["finished"] is not None
                        and at >= j["finished"]):
                    self.bad(f"{what}: effect at {at:.6f} after the job was "
                             f"recorded COMPLETED at {j['finished']:.6f}")
            if j["state"] == "COMPLETED" and j["token"] not in tokens:
                self.bad(f"{what} is COMPLETED without the effect of its "
                         f"last claim {j['token']}")
        for jid in by_job:
            self.bad(f"{db}: effects of job {jid}, which is no test_effect")

    # ----------------------------------------------------------- the store
    def read_object(self, tenant, digest, root=None):
        """The object's bytes, or None when the store (or `root`) has no
        regular file at its key."""
        path = object_path(root or self.store, tenant, digest)
        if os.path.islink(path) or not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def walk(self, tenant, root):
        """The closure of `root` as the store has it: (digest -> size of the
        object read or None, {digest: problem})."""
        seen, problems = {}, {}
        todo = [(root, "manifest", None)]
        while todo:
            d, kind, size = todo.pop()
            if d in seen:
                continue
            data = self.read_object(tenant, d)
            seen[d] = None if data is None else len(data)
            self.counts["objects read"] += 1
            if data is None:
                problems[d] = "missing"
                continue
            if "sha256:" + hashlib.sha256(data).hexdigest() != d:
                problems[d] = "digest"
                continue
            if size is not None and len(data) != size:
                problems[d] = "size"
                continue
            if kind == "manifest":
                try:
                    m = json.loads(data)
                    for e in m["entries"]:
                        todo.append((e["digest"], e["kind"], e["size"]))
                except (ValueError, KeyError, TypeError):
                    problems[d] = "manifest"
        return seen, problems

    # ------------------------------------------------------------ closures
    def snapshots(self, db):
        snaps = {}
        for r in rows(self.pg, db, "SELECT s.id, s.tenant_id, "
                      "coalesce(s.workspace_id, 0), s.root_digest, s.state, "
                      "coalesce(s.failure::text, ''), s.object_count, "
                      "s.byte_count, extract(epoch FROM s.released_at), "
                      "coalesce(e.expect, 'good'), coalesce(e.own_digest, "
                      "'') FROM awc.snapshots s LEFT "
                      "JOIN awc_test.expect_snapshot e ON e.snapshot_id = s.id"):
            snaps[int(r[0])] = {
                "tenant": r[1], "ws": int(r[2]), "root": r[3], "state": r[4],
                "failure": json.loads(r[5]) if r[5] else {},
                "objects": int(r[6]) if r[6] else None,
                "bytes": int(r[7]) if r[7] else None,
                "released": num(r[8]), "expect": r[9], "own": r[10]}
        closure = defaultdict(set)
        for sid, d in rows(self.pg, db, "SELECT snapshot_id, digest FROM "
                           "awc.snapshot_objects"):
            closure[int(sid)].add(d)
        pins = defaultdict(set)
        for t, d in rows(self.pg, db, "SELECT tenant_id, digest FROM "
                         "awc.gc_pins"):
            pins[t].add(d)
        repaired = {d for (d,) in rows(
            self.pg, db, "SELECT substr(subject, 8) FROM awc.audit_events "
            "WHERE event = 'object.repaired'")}
        live = defaultdict(set)  # tenant -> digests GC must keep
        for sid, s in sorted(snaps.items()):
            self.counts[f"snapshots checked: {s['state']}"] += 1
            what = f"snapshot {sid} ({s['state']}, made {s['expect']})"
            st, exp = s["state"], s["expect"]
            if st == "VALIDATING":
                self.bad(f"{what} is still VALIDATING")
            if st in ("VALIDATING", "READY", "DEGRADED"):
                live[s["tenant"]] |= closure[sid] | {s["root"]}
                if st == "VALIDATING":
                    live[s["tenant"]] |= set(self.walk(s["tenant"],
                                                       s["root"])[0])
            if st == "READY":
                seen, problems = self.walk(s["tenant"], s["root"])
                if problems:
                    # A READY snapshot with a missing or bad object:
                    # validation trusted, or GC deleted, what it should not.
                    self.bad(f"{what}: its closure in the store has "
                             f"problems {problems}")
                if set(seen) != closure[sid]:
                    self.bad(f"{what}: {len(closure[sid])} recorded closure "
                             f"rows, the store's closure has {len(seen)}")
                if s["objects"] != len(seen) or s["bytes"] != sum(
                        v or 0 for v in seen.values()):
                    self.bad(f"{what}: counts {s['objects']}/{s['bytes']} "
                             "differ from its closure")
                if exp in FAULTED:
                    self.counts[f"snapshots {exp} and repaired"] += 1
                    if s["own"] not in repaired:
                        self.bad(f"{what}: READY without a repair of "
                                 f"{s['own']}")
                elif exp != "good":
                    self.bad(f"{what}: READY, expected {exp}")
            elif st == "DEGRADED":
                badset = set()
                for d in closure[sid]:
                    data = self.read_object(s["tenant"], d)
                    self.counts["objects read"] += 1
                    if data is None or "sha256:" + hashlib.sha256(
                            data).hexdigest() != d:
                        badset.add(d)
                listed = set(s["failure"].get("bad_digests", []))
                if not badset or listed != badset:
                    self.bad(f"{what}: bad objects {sorted(badset)}, "
                             f"recorded {sorted(listed)}")
                if not closure[sid] <= pins[s["tenant"]]:
                    self.bad(f"{what}: its closure is not all pinned")
                if exp not in FAULTED:
                    self.bad(f"{what}: DEGRADED, but nothing of it decayed")
                self.counts[f"snapshots {exp} and DEGRADED"] += 1
                for d in sorted(listed):
                    copy = self.read_object(s["tenant"], d, self.replica)
                    if copy is not None and "sha256:" + hashlib.sha256(
                            copy).hexdigest() == d:
                        self.bad(f"{what}: DEGRADED over {d}, which the "
                                 "replica holds whole")
            elif st == "FAILED":
                code = s["failure"].get("code")
                if exp != f"failed:{code}":
                    self.bad(f"{what}: FAILED with {s['failure']}")
        for t, ds in pins.items():
            live[t] |= ds
        return snaps, live

    def gc_safety(self, db, live, snaps):
        # The objects the suite damaged or deleted itself.
        decayed = set(tuple(r) for r in rows(
            self.pg, db, "SELECT s.tenant_id, e.own_digest FROM "
            "awc_test.expect_snapshot e JOIN awc.snapshots s ON "
            "s.id = e.snapshot_id WHERE e.expect IN ('decayed', 'lost')"))
        for t, ds in live.items():
            for d in sorted(ds):
                self.counts["live objects checked present"] += 1
                path = object_path(self.store, t, d)
                if not os.path.isfile(path) and (t, d) not in decayed:
                    self.bad(f"GC safety: live object {t}/{d} is not in the "
                             "store")
        for t, d, size, state in rows(self.pg, db, "SELECT tenant_id, digest, "
                                      "size, state FROM awc.objects"):
            self.counts["inventory rows checked"] += 1
            if state != "LIVE":
                self.bad(f"inventory: {t}/{d} left {state}")
                continue
            data = self.read_object(t, d)
            if data is None:
                if (t, d) not in decayed:
                    self.bad(f"inventory: LIVE {t}/{d} is not in the store")
            elif (t, d) not in decayed and (
                    len(data) != int(size) or
                    "sha256:" + hashlib.sha256(data).hexdigest() != d):
                self.bad(f"inventory: LIVE {t}/{d} has other content")
        for eid, state in rows(self.pg, db, "SELECT id, state FROM "
                               "awc.gc_epochs WHERE state NOT IN "
                               "('COMPLETED', 'REFUSED')"):
            self.bad(f"gc epoch {eid} ended {state}")
        # The references (docs/store.md, "Shared content"): each count is
        # the roots that hold one plus the recorded entries of referenced
        # manifests naming the object (a file entry once its manifest's
        # file entries are counted); a referenced or held object is LIVE.
        for t, d, refs, want, state, held in rows(
                self.pg, db,
                "SELECT o.tenant_id, o.digest, o.refs, (SELECT count(*) FROM "
                "awc.snapshots s WHERE s.tenant_id = o.tenant_id AND "
                "s.holds_refs AND s.root_digest = o.digest) + (SELECT "
                "count(*) FROM awc.object_edges e JOIN awc.objects m ON "
                "m.tenant_id = e.tenant_id AND m.digest = 'sha256:' || "
                "encode(e.parent, 'hex') WHERE e.tenant_id = o.tenant_id AND "
                "e.child = decode(substr(o.digest, 8), 'hex') AND m.refs > 0 "
                "AND m.manifest_entries AND (e.child_manifest OR "
                "m.entries_counted)), o.state, EXISTS (SELECT 1 FROM "
                "awc.object_edges e JOIN awc.objects m ON m.tenant_id = "
                "e.tenant_id AND m.digest = 'sha256:' || encode(e.parent, "
                "'hex') WHERE e.tenant_id = o.tenant_id AND e.child = "
                "decode(substr(o.digest, 8), 'hex') AND NOT e.child_manifest "
                "AND m.refs > 0 AND m.manifest_entries AND NOT "
                "m.entries_counted) FROM awc.objects o"):
            self.counts["reference counts checked"] += 1
            if int(refs) != int(want):
                self.bad(f"references: {t}/{d} counts {refs}, the DAG "
                         f"gives {want}")
            if (int(refs) > 0 or held == "t") and state != "LIVE":
                self.bad(f"references: {t}/{d} is referenced or held and "
                         f"{state}")

    def orphans(self, db):
        """Every object in the store is in the inventory: reconciliation
        registered what failed imports left, and GC deleted it."""
        known = {(t, d) for t, d in rows(self.pg, db, "SELECT tenant_id, "
                                           "digest FROM awc.objects")}
        for tenant in os.listdir(self.store):
            if os.path.islink(os.path.join(self.store, tenant)):
                continue  # a hostile layout's: see hostile_layout()
            top = os.path.join(self.store, tenant, "sha256")
            for d, _, files in os.walk(top):
                for name in files:
                    if len(name) != 64:
                        continue
                    self.counts["store objects checked registered"] += 1
                    if (tenant, "sha256:" + name) not in known:
                        self.bad(f"orphan: {tenant}/sha256:{name} is in the "
                                 "store and not in the inventory")
        for (result,) in rows(self.pg, db, "SELECT result::text FROM "
                              "awc.jobs WHERE kind = 'store_reconcile' AND "
                              "state = 'COMPLETED'"):
            r = json.loads(result)
            self.counts["orphans registered by reconciliation"] += int(
                r.get("orphans", 0))
            self.counts["objects missing found by reconciliation"] += int(
                r.get("missing", 0))

    def mixed_builds(self, db):
        """The next release's kind ran on its workers only, each job once
        done, never dead-lettered by an older worker; and its migration is
        applied, compatible, beside this build's."""
        for jid, state, by, attempts in rows(
                self.pg, db, "SELECT id, state, coalesce(result->>'by', ''), "
                "attempts FROM awc.jobs WHERE kind = 'test_next_kind'"):
            self.counts["jobs of the next release's kind"] += 1
            if state == "COMPLETED" and by != "next":
                self.bad(f"{db}: test_next_kind job {jid} completed by "
                         f"another build: {by!r}")
        deferred = rows(self.pg, db, "SELECT count(*) FROM awc.jobs WHERE "
                        "kind = 'test_next_kind' AND last_error LIKE "
                        "'%left for the live workers of build%'")[0][0]
        self.counts["next-kind jobs left once by an older worker"] += int(
            deferred)
        newest = rows(self.pg, db, "SELECT name, compatible_from FROM "
                      "awc.schema_migrations ORDER BY version DESC LIMIT 1")
        if not newest or not newest[0][0].endswith("_next_release"):
            self.bad(f"{db}: the next release's migration is not applied: "
                     f"{newest}")

    def hostile_layout(self, db, tenants):
        """The tenants laid out as links into others' directories: their
        reconciliations listed none of the objects the links lead to, and
        registered nothing (so GC had nothing of theirs to delete)."""
        for t in tenants:
            n = int(rows(self.pg, db, "SELECT count(*) FROM awc.objects "
                         f"WHERE tenant_id = '{t}'")[0][0])
            if n:
                self.bad(f"hostile layout: {n} inventory rows of {t}")
        for tenant, result in rows(self.pg, db, "SELECT payload->>'tenant_id',"
                                   " result::text FROM awc.jobs WHERE kind = "
                                   "'store_reconcile' AND state = 'COMPLETED'"):
            if tenant not in tenants:
                continue
            r = json.loads(result)
            self.counts["reconciliations of hostile layouts"] += 1
            if r.get("objects") or r.get("orphans"):
                self.bad(f"hostile layout: the reconciliation of {tenant} "
                         f"listed objects through a link: {r}")
        for tenant, result in rows(self.pg, db, "SELECT payload->>'tenant_id',"
                                   " result::text FROM awc.jobs WHERE kind = "
                                   "'gc_sweep' AND state = 'COMPLETED'"):
            if tenant in tenants and json.loads(result).get("deleted"):
                self.bad(f"hostile layout: GC of {tenant} deleted: {result}")

    # --------------------------------------------------------------- audit
    @staticmethod
    def made_by(ev, subject, data, tenant, epochs):
        """The (job kind, job subject) whose run writes this event."""
        kind, sid = subject.split("/", 1)
        if kind == "gc_epoch" and int(sid) in epochs:
            return "gc_sweep", f"tenant/{epochs[int(sid)][1]}"
        if ev.startswith("object.repair"):
            # By the job that found the object bad, of a snapshot or (a
            # reconciliation) of the tenant.
            return data.get("found_by"), (
                f"snapshot/{data['snapshot_id']}" if "snapshot_id" in data
                else f"tenant/{tenant}")
        if "found_by_reconcile" in data:
            return "store_reconcile", f"tenant/{tenant}"
        if "found_by" in data:  # degraded by another snapshot's scrub
            return "snapshot_scrub", f"snapshot/{data['found_by']}"
        return EVENT_JOB_KIND.get(ev), subject

    def audit(self, db, jobs, snaps):
        events = defaultdict(list)
        tenant_of = {}
        for r in rows(self.pg, db, "SELECT id, event, subject, data::text, "
                      "extract(epoch FROM created_at), coalesce(tenant_id, "
                      "'') FROM awc.audit_events ORDER BY id"):
            events[r[2]].append((int(r[0]), r[1], json.loads(r[3]),
                                 float(r[4])))
            tenant_of[int(r[0])] = r[5]
        self.counts["audit events checked"] = sum(map(len, events.values()))
        # Job lives per (kind, subject) for the "within a job" rule.
        lives = defaultdict(list)
        for j in jobs.values():
            p = j["payload"]
            subj = (f"snapshot/{p['snapshot_id']}" if "snapshot_id" in p else
                    f"workspace/{p['workspace_id']}" if "workspace_id" in p
                    else f"tenant/{p.get('tenant_id')}")
            lives[(j["kind"], subj)].append((j["created"], j["finished"]))
        epochs = {int(r[0]): r for r in rows(
            self.pg, db, "SELECT id, tenant_id, state, deleted_count FROM "
            "awc.gc_epochs")}
        workspaces = {int(r[0]): r for r in rows(
            self.pg, db, "SELECT id, state, extract(epoch FROM expired_at) "
            "FROM awc.workspaces")}
        ws_expired_at = {}
        for subject, evs in events.items():
            kind, sid = subject.split("/")
            for eid, ev, data, at in evs:
                jkind, jsubj = self.made_by(ev, subject, data,
                                            tenant_of[eid], epochs)
                spans = lives.get((jkind, jsubj), [])
                if not any(c <= at and (f is None or at <= f)
                           for c, f in spans):
                    self.bad(f"audit event {eid} ({ev} of {subject}) at "
                             f"{at:.6f} is outside the life of every "
                             f"{jkind} job of {jsubj}: ran after being "
                             "recorded")
            if kind == "workspace":
                state = "ACTIVE"
                for eid, ev, data, at in evs:
                    if data.get("from") != state:
                        self.bad(f"audit event {eid} ({ev}) of {subject} "
                                 f"from {data.get('from')}, it was {state}")
                    state = data.get("to")
                    if ev == "workspace.expired":
                        ws_expired_at[int(sid)] = at
                w = workspaces.get(int(sid))
                if w and w[1] != state:
                    self.bad(f"{subject} is {w[1]}, its audit trail says "
                             f"{state}")
        for wid, w in workspaces.items():
            self.counts["workspaces checked"] += 1
            if w[1] != "ACTIVE" and not events.get(f"workspace/{wid}"):
                self.bad(f"workspace/{wid} is {w[1]} without audit events")
        for sid, s in snaps.items():
            subject = f"snapshot/{sid}"
            state = "VALIDATING"
            for eid, ev, data, at in events.get(subject, []):
                v = data.get("verdict") or ""
                step = {("snapshot.validate", "VALIDATING", "ready"): "READY",
                        ("snapshot.validate", "VALIDATING", "failed"):
                            "FAILED",
                        ("snapshot.scrub", "READY", "clean"): "READY",
                        ("snapshot.scrub", "READY", "degraded"): "DEGRADED",
                        ("snapshot.scrub", "DEGRADED", "restored"): "READY",
                        ("snapshot.released", "READY", ""): "RELEASED"}.get(
                            (ev, state, v))
                if step is None:
                    self.bad(f"audit event {eid} ({ev} {v}) of {subject} "
                             f"while it was {state}")
                    break
                state = step
            if s["state"] == "RELEASED" and state != "RELEASED":
                at = ws_expired_at.get(s["ws"])
                if at is None or s["released"] is None or abs(
                        at - s["released"]) > 1e-6:
                    self.bad(f"{subject} RELEASED (from {state}) by no "
                             "snapshot.released event nor its workspace's "
                             "workspace.expired")
                state = "RELEASED"
            if state != s["state"]:
                self.bad(f"{subject} is {s['state']}, its audit trail says "
                         f"{state}")
        for eid, (_, tenant, state, deleted) in epochs.items():
            self.counts["gc epochs checked"] += 1
            evs = events.get(f"gc_epoch/{eid}", [])
            if state not in TERMINAL_EPOCH_VERDICTS:
                continue
            if len(evs) != 1:
                self.bad(f"gc epoch {eid} ({state}) has {len(evs)} gc.epoch "
                         "events")
                continue
            data = evs[0][2]
            if (data.get("verdict") not in TERMINAL_EPOCH_VERDICTS[state] or
                    data.get("deleted") != int(deleted)):
                self.bad(f"gc epoch {eid} ({state}, {deleted} deleted): "
                         f"its event says {data}")
            self.counts["objects deleted by gc"] += int(deleted)
