"""What one run of the queue benchmark costs the cluster, per job (part 2
of queue_bench.py's report): commits, round trips, WAL bytes and WAL
flushes. Standard library only.
"""

import os
import re
import subprocess
import time


def tcp_data_segments_in(port):
    """{(server address, client address): TCP segments with data the server
    received} for the established connections to `port` (ss -ti)."""
    r = subprocess.run(["ss", "-tinH", "state", "established",
                        f"( sport = :{port} )"], capture_output=True,
                       text=True)
    out, key = {}, None
    for line in r.stdout.splitlines():
        if not line.startswith((" ", "\t")):
            f = line.split()
            key = (f[-2], f[-1]) if len(f) >= 2 else None
            continue
        m = re.search(r"\bdata_segs_in:(\d+)", line)
        if key and m:
            out[key] = int(m.group(1))
    return out


class Costs:
    """What one run cost the cluster, per job: commits (pg_stat_database),
    WAL bytes (pg_current_wal_lsn), WAL flushes (pg_stat_wal.wal_sync), and
    round trips: TCP segments carrying data into the server on the
    connections opened during the run (ss), less the benchmark's own polling
    session. sample() keeps the largest count seen per connection, so a
    client whose connections close (pgbench) is counted up to its last
    sample."""

    def __init__(self, bench, db):
        self.b, self.db = bench, db
        self.port = os.environ["PGPORT"]
        self.segs0 = tcp_data_segments_in(self.port)
        self.segs = {}
        self.exclude = set()
        self.commits0 = self._commits()
        self.lsn0, self.syncs0 = self._wal()

    def _commits(self):
        return int(self.b.admin.query(
            "SELECT pg_stat_force_next_flush(); "
            "SELECT xact_commit FROM pg_stat_database "
            f"WHERE datname = '{self.db}'").split("\n")[-1] or 0)

    def _wal(self):
        row = self.b.admin.query(
            "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, wal_sync "
            "FROM pg_stat_wal").split("|")
        return int(float(row[0])), int(row[1])

    def exclude_session(self, session):
        """Leaves out the connection of a polling psql `session`."""
        port = session.query("SELECT inet_client_port()")
        self.exclude.add(port)

    def sample(self):
        for k, v in tcp_data_segments_in(self.port).items():
            if k[1].rsplit(":", 1)[-1] in self.exclude:
                continue
            self.segs[k] = max(self.segs.get(k, 0), v)

    def finish(self, n):
        """Per-job costs; call once the run's backends have exited (their
        statistics are flushed then; the WAL writer's within a second)."""
        time.sleep(1.1)
        commits = self._commits() - self.commits0
        lsn, syncs = self._wal()
        segs = sum(v - self.segs0.get(k, 0) for k, v in self.segs.items())
        return {"commits": commits / n, "round_trips": segs / n,
                "wal_bytes": (lsn - self.lsn0) / n,
                "wal_flushes": (syncs - self.syncs0) / n}
