"""What the benchmark scripts of bench/ share (queue_bench.py,
storage_bench.py, scheduler_bench.py, console_bench.py and their modules):
logging and the environment knobs, PostgreSQL through psql (one-shot
commands, a long-lived session, databases), the CPU readers (/proc: the
cluster's processes, the whole machine, one process), statistics, the CPU
model and memory of a report's header, and writing the report. Standard
library only.
"""

import atexit
import datetime
import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr,
          flush=True)


def die(msg):
    log(f"error: {msg}")
    sys.exit(1)


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def env_list(name, default):
    v = os.environ.get(name, "")
    if not v.strip():
        return default
    return [int(x) for x in re.split(r"[ ,]+", v.strip()) if x]


# --------------------------------------------------------------- PostgreSQL

def psql(db, *commands):
    """Runs each command (its own transaction) with psql; returns stdout."""
    args = ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", db]
    for c in commands:
        args += ["-c", c]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"psql failed on {db}: {r.stderr.strip()}")
    return r.stdout.strip()


class Session:
    """One long-lived psql connection, for polling without spawning."""

    def __init__(self, db):
        self.p = subprocess.Popen(
            ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1",
             "-d", db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            bufsize=1)

    def query(self, sql):
        self.p.stdin.write(sql.rstrip().rstrip(";") + ";\n\\echo __awc_end__\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if line == "":
                die(f"psql session ended during: {sql}")
            line = line.rstrip("\n")
            if line == "__awc_end__":
                return "\n".join(lines)
            lines.append(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def db_url(db):
    return (f"postgresql://{os.environ['PGUSER']}:{os.environ['PGPASSWORD']}"
            f"@{os.environ['PGHOST']}:{os.environ['PGPORT']}/{db}")


def create_db(name, template=None, strategy=None):
    args = ["createdb"] + (["-T", template] if template else [])
    args += (["-S", strategy] if strategy else []) + [name]
    for attempt in range(50):
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            return
        # The template's last backend may still be exiting.
        if "being accessed by other users" in r.stderr and attempt < 49:
            time.sleep(0.1)
            continue
        die(f"createdb {name}: {r.stderr.strip()}")


def drop_db(name):
    subprocess.run(["dropdb", "--if-exists", "--force", name], check=True)


# --------------------------------------------------------------------- CPU

def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name, or None when the
    process is gone: [0] is the state (field 3 of proc(5)), [1] the parent,
    [11:15] utime, stime, cutime and cstime in clock ticks."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    return s[s.rindex(")") + 2:].split()


# Process groups (daemons, peers, s3rver) to kill if the benchmark dies.
LIVE_PGIDS = []


@atexit.register
def kill_live():
    for pid in LIVE_PGIDS:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


class PgCpu:
    """CPU seconds spent by the PostgreSQL cluster (postmaster, its live
    children, and the children it has reaped: exited backends)."""

    def __init__(self, postmaster_pid):
        self.pm = postmaster_pid

    @staticmethod
    def _stat(pid):
        fields = stat_fields(pid)
        if fields is None:
            return None
        return int(fields[1]), [int(x) for x in fields[11:15]]

    def settle(self, db, timeout=10.0):
        """Waits until the backends of `db` have exited and been reaped: an
        exited, unreaped backend (a zombie) shows no CPU time at all."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            busy = False
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                fields = stat_fields(entry)
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        cmd = f.read().decode(errors="replace")
                except OSError:
                    continue
                if fields is None or int(fields[1]) != self.pm:
                    continue
                # An exiting process has an empty cmdline.
                if fields[0] in ("Z", "X") or not cmd or f" {db} " in cmd:
                    busy = True
                    break
            if not busy:
                return
            time.sleep(0.01)
        log(f"warning: backends of {db} still present after {timeout}s; "
            "PostgreSQL CPU figures may be low")

    def now(self):
        # A child reaped while /proc is scanned would be counted neither as
        # a live child nor in the postmaster's cutime, and an exited child
        # not reaped yet shows no CPU time: sample until neither happened.
        for _ in range(100):
            before = self._stat(self.pm)
            total, zombie = self._children()
            after = self._stat(self.pm)
            if (before and after and before[1][2:] == after[1][2:]
                    and not zombie):
                break
            time.sleep(0.01)
        return (sum(after[1]) if after else 0) / CLK_TCK + total

    def _children(self):
        """(CPU seconds of the live children, whether one has exited)"""
        total, zombie = 0, False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            fields = stat_fields(entry)
            if fields is None or int(fields[1]) != self.pm:
                continue
            if fields[0] in ("Z", "X"):
                zombie = True
            total += int(fields[11]) + int(fields[12])
        return total / CLK_TCK, zombie


def cpu_busy():
    """CPU seconds the whole machine has been busy (all CPUs, /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    return (sum(v[:8]) - v[3] - v[4]) / CLK_TCK


def proc_cpu(pid):
    """CPU seconds of a process and its reaped children (/proc)."""
    fields = stat_fields(pid)
    return sum(int(x) for x in fields[11:15]) / CLK_TCK if fields else 0.0


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -------------------------------------------------------------- statistics

def percentile(sorted_values, p):
    """Nearest-rank percentile."""
    k = max(0, min(len(sorted_values) - 1,
                   -(-len(sorted_values) * p // 100) - 1))
    return sorted_values[int(k)]


def med(values):
    return statistics.median(values)


def fmt_runs(values, spec="{:.0f}"):
    return " ".join(spec.format(v) for v in values)


# ------------------------------------------------------------------ report

def cpu_and_memory():
    """The CPU model name and the memory in kB, from /proc."""
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return model, mem_kb


DURABILITY_SETTINGS = ("fsync", "synchronous_commit", "full_page_writes")


def require_durable(make_target):
    """Dies unless the cluster runs at PostgreSQL's default durability
    (fsync, synchronous_commit and full_page_writes on), naming the make
    target that starts such a cluster: every figure that involves
    PostgreSQL is taken at the durability users run."""
    got = {k: psql("postgres", f"SHOW {k}") for k in DURABILITY_SETTINGS}
    off = [f"{k}={v}" for k, v in got.items() if v != "on"]
    if off:
        die(f"the cluster is not durable ({', '.join(off)}): the figures "
            f"are taken at PostgreSQL's default durability ({make_target} "
            "starts such a cluster)")


def git_commit():
    """`git describe --always --dirty` of this tree, or "?"."""
    r = subprocess.run(["git", "describe", "--always", "--dirty"],
                       capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.abspath(__file__)))
    return r.stdout.strip() or "?"


def load_avg():
    """The 1, 5 and 15 minute load averages, as /proc/loadavg has them."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[0:3])


def run_header(postgresql, *extra):
    """The lines that open a report: date, commit, machine, the
    PostgreSQL line given, `extra` lines, the load at the start."""
    model, mem_kb = cpu_and_memory()
    now = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    return [f"date        {now}",
            f"commit      {git_commit()}",
            f"machine     {os.cpu_count()} CPUs ({model}), "
            f"{mem_kb / 1048576:.1f} GiB, Linux {platform.release()}",
            f"postgresql  {postgresql}",
            *extra,
            f"load avg    {load_avg()} at start"]


def write_report(lines, started, results, appendix=()):
    """Prints the report with the total time and writes it to `results`,
    followed there by the `appendix` lines (too long to print: a
    timeline)."""
    lines = lines + ["", f"total benchmark time {time.monotonic() - started:.0f} s"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    os.makedirs(os.path.dirname(results), exist_ok=True)
    with open(results, "w") as f:
        f.write(text)
        if appendix:
            f.write("\n" + "\n".join(appendix) + "\n")
    log(f"results written to {results}")
