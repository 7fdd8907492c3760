#!/usr/bin/env python3
"""The steady producer of the pinned-horizon benchmark (queue_horizon.py),
a process of its own so that nothing the benchmark or the workers do slows
its pace: it feeds one psql session, through its stdin, one autocommitted
multi-row INSERT per tick with every job due so far (job n is due at
t0 + n / rate), and notes when each one's COMMIT returned.

  queue_horizon_producer.py DB SYSTEM RATE TICK_MS ACKS_FILE

SYSTEM `awc` inserts with the producer contract of awc.jobs (`INSERT INTO
awc.jobs (kind, payload) VALUES ('bench_noop', '{}'), ...`); `graphile`
with graphile-worker's batch function, graphile_worker.add_jobs, one job
spec per row, whose payload {"t": ...} is the INSERT transaction's time as
epoch seconds (what awc.jobs keeps as created_at). Over its stdout it
speaks one line at a time with the benchmark: it writes `ready PID` (its
backend), reads `go T0` (epoch seconds; it starts at T0), and on `stop`
sends the jobs due until then, waits for their COMMIT, writes ACKS_FILE
(`T0`, then per INSERT `commit_time jobs_so_far`) and writes `done N`.
Standard library only.
"""

import math
import select
import subprocess
import sys
import threading
import time

ACK = "@ack"


def insert_sql(system, n):
    if system == "awc":
        return ("INSERT INTO awc.jobs (kind, payload) VALUES " +
                ", ".join(["('bench_noop', '{}')"] * n) + ";\n")
    return ("SELECT count(*) FROM graphile_worker.add_jobs(ARRAY("
            "SELECT ROW('noop', json_build_object('t', "
            "extract(epoch FROM now())), NULL, NULL, NULL, NULL, NULL, "
            "NULL)::graphile_worker.job_spec "
            f"FROM generate_series(1, {n})));\n")


def main():
    db, system, rate, tick_ms, acks_path = sys.argv[1:6]
    rate, tick = float(rate), int(tick_ms) / 1000.0
    psql = subprocess.Popen(
        ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", db],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    psql.stdin.write("SET application_name = 'horizon-producer';\n"
                     f"\\echo {ACK} pid\nSELECT pg_backend_pid();\n")
    psql.stdin.flush()
    assert psql.stdout.readline().strip() == f"{ACK} pid"
    pid = psql.stdout.readline().strip()
    acks = []

    def read_acks():
        for line in psql.stdout:
            if line.startswith(ACK):
                acks.append((time.time(), int(line.split()[1])))

    reader = threading.Thread(target=read_acks, daemon=True)
    reader.start()
    print(f"ready {pid}", flush=True)
    cmd = sys.stdin.readline().split()
    if cmd[:1] != ["go"]:
        sys.exit(f"producer: expected go, got {cmd}")
    t0 = float(cmd[1])
    sent, k, stopping = 0, 0, False
    while True:
        wait = t0 + k * tick - time.time()
        if wait > 0 and not stopping:
            ready, _, _ = select.select([sys.stdin], [], [], wait)
            if ready:
                stopping = sys.stdin.readline().strip() in ("stop", "")
        now = time.time()
        k = max(k + 1, math.floor((now - t0) / tick) + 1)
        due = math.floor(rate * (now - t0))
        if due > sent:
            psql.stdin.write(insert_sql(system, due - sent) +
                             f"\\echo {ACK} {due}\n")
            psql.stdin.flush()
            sent = due
        if stopping:
            break
        if psql.poll() is not None:
            sys.exit(f"producer: psql exited with {psql.returncode}")
    psql.stdin.close()
    reader.join()
    if psql.wait() != 0:
        sys.exit(f"producer: psql exited with {psql.returncode}")
    with open(acks_path, "w") as f:
        f.write(f"{t0!r}\n")
        f.writelines(f"{t!r} {n}\n" for t, n in acks)
    print(f"done {sent}", flush=True)


if __name__ == "__main__":
    main()
