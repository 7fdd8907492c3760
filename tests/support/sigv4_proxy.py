#!/usr/bin/env python3
"""A reverse proxy that checks AWS Signature Version 4, for the S3 tests.

s3rver accepts any SigV4 signature. This proxy stands in front of it and
recomputes every request's signature from scratch (canonical request,
string to sign, signing key, as AWS documents them) with the expected
credentials; a request whose signature or payload hash does not match gets
403 SignatureDoesNotMatch, as AWS would answer, and never reaches s3rver.

Usage: sigv4_proxy.py --upstream HOST:PORT --key-id ID --secret SECRET
                      --region REGION --log FILE [--rate BYTES_PER_SEC]
Prints "port N" on stdout once it listens on 127.0.0.1:N; appends one line
per request to FILE: "OK <method> <path>" or "MISMATCH <method> <path>
<why>". With --rate, response bodies are sent no faster than that (a slow
link). Standard library only; the implementation reproduces AWS's
published example signature (see --self-test).
"""

import argparse
import hashlib
import hmac
import http.client
import http.server
import sys
import threading
import time
import urllib.parse

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _hmac(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def signature(secret, date, region, service, string_to_sign):
    key = _hmac(("AWS4" + secret).encode(), date)
    key = _hmac(key, region)
    key = _hmac(key, service)
    key = _hmac(key, "aws4_request")
    return hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()


def canonical_query(query):
    if not query:
        return ""
    pairs = []
    for part in query.split("&"):
        key, _, value = part.partition("=")
        pairs.append((key, value))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


def canonical_request(method, path, query, headers, signed, payload_hash):
    lines = [method, path, canonical_query(query)]
    for name in signed:
        value = " ".join(headers.get(name, "").split())
        lines.append(f"{name}:{value}")
    lines += ["", ";".join(signed), payload_hash]
    return "\n".join(lines)


def self_test():
    """AWS's worked example of a SigV4 signature (IAM ListUsers)."""
    cr = canonical_request(
        "GET", "/", "Action=ListUsers&Version=2010-05-08",
        {"content-type": "application/x-www-form-urlencoded; charset=utf-8",
         "host": "iam.amazonaws.com", "x-amz-date": "20150830T123600Z"},
        ["content-type", "host", "x-amz-date"], EMPTY_SHA256)
    digest = hashlib.sha256(cr.encode()).hexdigest()
    assert digest == ("f536975d06c0309214f805bb90ccff08"
                      "9219ecd68b2577efef23edd43b7e1a59"), digest
    sts = ("AWS4-HMAC-SHA256\n20150830T123600Z\n"
           "20150830/us-east-1/iam/aws4_request\n" + digest)
    sig = signature("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830",
                    "us-east-1", "iam", sts)
    assert sig == ("5d672d79c15b13162d9279b0855cfba6"
                   "789a8edb4c82c400e06b5924a6f2b5d7"), sig


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    cfg = None
    log_lock = threading.Lock()

    def log_message(self, fmt, *args):  # quiet: the log file says it all
        pass

    def record(self, line):
        with self.log_lock, open(self.cfg.log, "a") as f:
            f.write(line + "\n")

    def verify(self, body):
        """Returns "" when the request is correctly signed, else why not."""
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256 "):
            return "not signed with AWS4-HMAC-SHA256"
        fields = {}
        for part in auth[len("AWS4-HMAC-SHA256 "):].split(","):
            key, _, value = part.strip().partition("=")
            fields[key] = value
        scope = fields.get("Credential", "").split("/")
        if len(scope) != 5 or scope[0] != self.cfg.key_id:
            return "wrong credential"
        key_id, date, region, service, terminator = scope
        if (region, service, terminator) != (self.cfg.region, "s3",
                                             "aws4_request"):
            return "wrong scope " + "/".join(scope[1:])
        amz_date = self.headers.get("x-amz-date", "")
        if not amz_date.startswith(date):
            return "x-amz-date does not match the scope"
        payload_hash = self.headers.get("x-amz-content-sha256", "")
        if not payload_hash:
            return "no x-amz-content-sha256"
        if (payload_hash != "UNSIGNED-PAYLOAD" and
                payload_hash != hashlib.sha256(body).hexdigest()):
            return "payload hash does not match the body"
        signed = fields.get("SignedHeaders", "").split(";")
        for required in ("host", "x-amz-content-sha256", "x-amz-date"):
            if required not in signed:
                return "header not signed: " + required
        headers = {k.lower(): v for k, v in self.headers.items()}
        path, _, query = self.path.partition("?")
        cr = canonical_request(self.command, path, query, headers, signed,
                               payload_hash)
        sts = "\n".join(["AWS4-HMAC-SHA256", amz_date,
                         "/".join(scope[1:]),
                         hashlib.sha256(cr.encode()).hexdigest()])
        expected = signature(self.cfg.secret, date, region, service, sts)
        if not hmac.compare_digest(expected, fields.get("Signature", "")):
            return "signature mismatch"
        return ""

    def handle_any(self):
        length = int(self.headers.get("Content-Length", "0") or 0)
        body = self.rfile.read(length) if length else b""
        why = self.verify(body)
        path = urllib.parse.unquote(self.path.partition("?")[0])
        if why:
            self.record(f"MISMATCH {self.command} {path} {why}")
            xml = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>'
                   b"SignatureDoesNotMatch</Code><Message>" + why.encode() +
                   b"</Message></Error>")
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(xml)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(xml)
            return
        self.record(f"OK {self.command} {path}")
        host, port = self.cfg.upstream.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=60)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("connection", "keep-alive")}
        conn.request(self.command, self.path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("connection", "keep-alive",
                                 "transfer-encoding", "content-length"):
                self.send_header(k, v)
        if self.command == "HEAD":
            self.send_header("Content-Length",
                             resp.getheader("Content-Length", "0"))
        else:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.send_body(data)
        conn.close()

    def send_body(self, data):
        rate = self.cfg.rate
        if not rate:
            self.wfile.write(data)
            return
        chunk = max(1, rate // 10)
        for off in range(0, len(data), chunk):
            self.wfile.write(data[off:off + chunk])
            self.wfile.flush()
            time.sleep(0.1)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--upstream", required=True)
    p.add_argument("--key-id", required=True)
    p.add_argument("--secret", required=True)
    p.add_argument("--region", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--rate", type=int, default=0)
    p.add_argument("--self-test", action="store_true")
    cfg = p.parse_args()
    self_test()
    if cfg.self_test:
        return
    Handler.cfg = cfg
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
