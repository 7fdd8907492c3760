"""A PostgreSQL cluster of the chaos suite's own, which it may crash.

initdb into a temporary directory, a server on 127.0.0.1 and a free port
(trust authentication, no password), started and stopped with pg_ctl: the
suite stops it with `pg_ctl -m immediate` (no shutdown checkpoint, every
backend killed: crash recovery on the next start) and starts it again.
fsync is off: the server crashes, the machine does not, so the operating
system keeps every write. As root the server runs as the `postgres` user
(PostgreSQL refuses to run as root). Standard library only.
"""

import os
import pwd
import select
import shutil
import socket
import subprocess
import tempfile
import time

PG_BINDIRS = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin"]


class PgError(Exception):
    """A statement failed or the server could not be reached."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_bindir():
    for d in [os.environ.get("CHAOS_PG_BINDIR", "")] + PG_BINDIRS:
        if d and os.path.exists(os.path.join(d, "pg_ctl")):
            return d
    raise RuntimeError("no PostgreSQL server binaries (pg_ctl) found; "
                       "set CHAOS_PG_BINDIR")


class Cluster:
    def __init__(self, workdir):
        self.bindir = find_bindir()
        self.dir = os.path.join(workdir, "pg")
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        self.sessions = {}
        os.mkdir(self.dir, 0o700)
        if self.as_postgres:
            pw = pwd.getpwnam("postgres")
            os.chmod(workdir, 0o755)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)

    def _pg(self, tool, *args, check=True):
        cmd = [os.path.join(self.bindir, tool), *args]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        r = subprocess.run(cmd, capture_output=True, text=True,
                           cwd=self.dir, env=client_env())
        if check and r.returncode != 0:
            raise RuntimeError(f"{tool} failed: {r.stderr.strip()}")
        return r

    def init(self, durable=False, extra=""):
        """`durable`: fsync and full_page_writes on, as on a real server
        (the chaos suite turns them off: only the server crashes). `extra`:
        more postgresql.conf lines."""
        self._pg("initdb", "-D", self.data, "-U", "postgres", "--auth=trust",
                 "--no-sync", "-E", "UTF8", "--locale=C")
        sync = "on" if durable else "off"
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"\nport = {self.port}\n"
                    "listen_addresses = '127.0.0.1'\n"
                    f"unix_socket_directories = '{self.dir}'\n"
                    f"fsync = {sync}\nfull_page_writes = {sync}\n"
                    "max_connections = 100\nshared_buffers = 32MB\n"
                    "log_min_messages = warning\n" + extra)

    def start(self):
        self._pg("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "120",
                 "start")

    def stop_immediate(self):
        """Kills the server and every backend: no checkpoint, no goodbye."""
        self._pg("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def stop(self):
        self._pg("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop",
                 check=False)

    def url(self, db):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def psql(self, db, sql, timeout=60):
        """Runs `sql` (one transaction unless it says otherwise) on this
        process's session to `db`; returns its rows as lists of strings
        (tab-separated, NULL as ""). PgError when it fails; the next call
        opens a new session."""
        session = self.sessions.get(db)
        if session is None:
            session = self.sessions[db] = Session(self, db)
        try:
            return session.query(sql, timeout)
        except PgError:
            session.close()
            del self.sessions[db]
            raise

    def close_sessions(self):
        for s in self.sessions.values():
            s.close()
        self.sessions.clear()

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class Session:
    """One long-lived psql process (spawning one per statement costs more
    than most statements). psql ends on the first error (ON_ERROR_STOP)
    or lost connection; the query then raises PgError with its stderr."""

    MARK = "__awc_chaos_end__"

    def __init__(self, cluster, db):
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen(
            ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-F",
             "\t", "-h", "127.0.0.1", "-p", str(cluster.port), "-U",
             "postgres", "-d", db], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.err, env=client_env())
        self.buf = b""

    def query(self, sql, timeout):
        try:
            self.p.stdin.write(sql.rstrip().rstrip(";").encode() +
                               f";\n\\echo {self.MARK}\n".encode())
            self.p.stdin.flush()
        except OSError:
            raise PgError(self.error()) from None
        deadline = time.monotonic() + timeout
        fd = self.p.stdout.fileno()
        while True:
            end = self.buf.find(f"{self.MARK}\n".encode())
            if end >= 0:
                out, self.buf = self.buf[:end], self.buf[end + len(
                    self.MARK) + 1:]
                return [line.split("\t") for line in
                        out.decode().splitlines() if line]
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise PgError(f"psql timed out: {sql[:80]}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise PgError(self.error())
            self.buf += chunk

    def error(self):
        self.close()
        self.err.seek(0)
        return self.err.read().decode(errors="replace").strip() or "psql ended"

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        for f in (self.p.stdin, self.p.stdout):
            try:
                f.close()
            except OSError:
                pass


def client_env(extra=None):
    """This process's environment without any database or daemon setting
    (make check runs under pg_virtualenv, whose PG* point elsewhere)."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("PG") or k.startswith("AWC_")
                   or k in ("DATABASE_URL", "NOTIFY_SOCKET"))}
    env.update(extra or {})
    return env
