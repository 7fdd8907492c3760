"""s3rver for the storage benchmarks' S3 parts (storage_s3.py): s3rver on a
free loopback port, and a loopback proxy in front of it that adds a time
to first byte to every response. Standard library only.
"""

import asyncio
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.request

from bench_common import LIVE_PGIDS, die, free_port, proc_cpu

class LatencyProxy:
    """A loopback TCP proxy in front of s3rver that holds the first bytes of
    each response for `delay` seconds before passing them on, as a real
    object store's time to first byte. HTTP/1.1 without pipelining (libcurl
    does not pipeline): the first bytes the server sends after the client
    sent a request start its response. Client connections go to the
    `upstream_ports` in turn (several s3rver processes serving one data
    directory: one JavaScript thread serves only a few hundred requests a
    second). Runs its asyncio loop in a thread."""

    def __init__(self, upstream_ports, delay):
        self.upstream_ports = list(upstream_ports)
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
        upstream = self.upstream_ports[self.connections %
                                       len(self.upstream_ports)]
        self.connections += 1
        try:
            sreader, swriter = await asyncio.open_connection(
                "127.0.0.1", upstream)
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
