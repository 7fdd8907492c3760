"""A daemon fleet (one master and its workers) as real processes.

The master is started in a process group of its own; its workers are found
through /proc (children of the master) with their process titles
(`awc-worker: worker N job <id> <kind>`). After the master is killed its
workers are orphans that finish their job and exit (they get SIGTERM when
the master dies); the fleet keeps their process groups so that stop() can
wait for them, then kill what is left.
"""

import os
import shutil
import signal
import subprocess
import time

from pgcluster import client_env


def children_of(ppid):
    """(pid, title) of the live processes whose parent is `ppid`."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != ppid or fields[0] == "Z":
                continue
            with open(f"/proc/{name}/cmdline", "rb") as f:
                title = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        out.append((int(name), title.strip()))
    return out


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


class Fleet:
    def __init__(self, name, binary, settings, logdir):
        self.name = name
        self.binary = binary
        self.env = client_env(settings)
        self.log_path = os.path.join(logdir, f"{name}.log")
        self.master = None
        self.groups = []  # process groups ever started (masters' pids)
        self.starts = 0

    def start(self):
        log = open(self.log_path, "ab")
        self.master = subprocess.Popen([self.binary], env=self.env,
                                       stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=log, start_new_session=True)
        log.close()
        self.groups.append(self.master.pid)
        self.starts += 1

    def master_alive(self):
        return self.master is not None and self.master.poll() is None

    def workers(self):
        if not self.master_alive():
            return []
        return [(p, t) for p, t in children_of(self.master.pid)
                if "worker" in t]

    def busy_workers(self, kinds):
        """Workers whose title says they run a job of one of `kinds`."""
        return [p for p, t in self.workers()
                if " job " in t and any(k in t for k in kinds)]

    def kill_master(self):
        """SIGKILL to the master; its workers drain and exit by themselves."""
        self.master.kill()
        self.master.wait()

    def stop(self, timeout=60):
        """SIGTERM to the master (workers finish their jobs), then waits for
        every process group this fleet ever started; SIGKILL after
        `timeout`. Returns the master's exit status (None if it was gone)."""
        status = None
        if self.master_alive():
            self.master.send_signal(signal.SIGTERM)
            try:
                status = self.master.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        deadline = time.monotonic() + timeout
        for g in self.groups:
            while group_alive(g) and time.monotonic() < deadline:
                try:
                    os.killpg(g, signal.SIGCONT)
                except OSError:
                    pass
                time.sleep(0.1)
            if group_alive(g):
                try:
                    os.killpg(g, signal.SIGKILL)
                except OSError:
                    pass
        if self.master is not None and self.master.poll() is None:
            self.master.kill()
            self.master.wait()
        return status

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


def sanitizer_reports(fleet):
    """The lines of `fleet`'s log where ASan, LSan or UBSan reported."""
    with open(fleet.log_path, errors="replace") as fh:
        for line in fh:
            if ("AddressSanitizer" in line or "runtime error:" in line
                    or "LeakSanitizer" in line):
                yield line.strip()[:300]


def tear_down(fleets, pg, work, keep, log):
    """Stops the fleets and the cluster; removes `work` unless `keep`."""
    for f in fleets:
        f.stop(timeout=5)
    pg.close_sessions()
    pg.stop()
    if keep:
        log(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
