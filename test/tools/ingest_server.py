#!/usr/bin/env python3
"""A stand-in for Grafana Pyroscope's POST /ingest, for 90-continuous.sh.

    ingest_server.py MODE PORT_FILE LOG_FILE [LIFETIME_S]

Listens on 127.0.0.1 (a port of the kernel's choosing, written to
PORT_FILE) and appends one JSON line per request to LOG_FILE: the method,
path, query, the sum of the body's counts, its first lines, and every way
in which the request departs from the documented API ("errors"):

  - POST /ingest
  - name, from, until, sampleRate, spyName, format all present, once each
  - name is APP.wall{} or APP.wall{k=v,...}: APP of A-Z a-z 0-9 _ . - /,
    keys of A-Z a-z 0-9 _, values without , { } = or spaces
  - from and until whole UNIX seconds, from < until
  - sampleRate a positive integer, spyName ptrace_profiler, format folded
  - the body: lines "STACK COUNT", STACK not empty, COUNT a positive
    integer

MODE: ok (answers 200), fail (answers 500), reject (answers 400), hang
(reads the request, never answers).  The server ends by itself after LIFETIME_S (default 120).
"""
import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, PORT_FILE, LOG_FILE = sys.argv[1], sys.argv[2], sys.argv[3]
LIFETIME = float(sys.argv[4]) if len(sys.argv) > 4 else 120.0
LOCK = threading.Lock()
NAME_RE = re.compile(
    r"^[A-Za-z0-9_./-]+\.wall\{(?:[A-Za-z_][A-Za-z0-9_]*=[^,{}= ]+"
    r"(?:,[A-Za-z_][A-Za-z0-9_]*=[^,{}= ]+)*)?\}$")
LINE_RE = re.compile(r"^(.+) ([0-9]+)$")
PARAMS = ("name", "from", "until", "sampleRate", "spyName", "format")


def check(method, path, query, body):
    errors = []
    if method != "POST":
        errors.append("method %s, not POST" % method)
    if path != "/ingest":
        errors.append("path %s, not /ingest" % path)
    q = urllib.parse.parse_qs(query, keep_blank_values=True)
    for p in PARAMS:
        if len(q.get(p, [])) != 1:
            errors.append("parameter %s given %d times" % (p, len(q.get(p, []))))
    one = {k: v[0] for k, v in q.items() if v}
    if "name" in one and not NAME_RE.match(one["name"]):
        errors.append("name %r is not APP.wall{k=v,...}" % one["name"])
    for p in ("from", "until", "sampleRate"):
        if p in one and not re.match(r"^[0-9]+$", one[p]):
            errors.append("%s %r is not an integer" % (p, one[p]))
    if re.match(r"^[0-9]+$", one.get("from", "x")) and re.match(r"^[0-9]+$", one.get("until", "x")):
        if int(one["from"]) >= int(one["until"]):
            errors.append("from %s is not before until %s" % (one["from"], one["until"]))
        if int(one["from"]) < 1600000000:
            errors.append("from %s is not a UNIX time of these years" % one["from"])
    if one.get("sampleRate", "1") == "0":
        errors.append("sampleRate 0")
    if one.get("spyName") != "ptrace_profiler":
        errors.append("spyName %r" % one.get("spyName"))
    if one.get("format") != "folded":
        errors.append("format %r" % one.get("format"))
    total, lines = 0, 0
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        errors.append("body is not UTF-8")
        text = ""
    for line in text.split("\n"):
        if line == "":
            continue
        lines += 1
        m = LINE_RE.match(line)
        if not m or int(m.group(2)) < 1:
            errors.append("body line %d is not 'STACK COUNT': %r" % (lines, line[:200]))
            continue
        total += int(m.group(2))
    if lines == 0:
        errors.append("empty body")
    if not text.endswith("\n"):
        errors.append("body does not end with a newline")
    return one, total, lines, text.split("\n")[:3], errors


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.handle_any("POST")

    def do_GET(self):
        self.handle_any("GET")

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        params, total, lines, head, errors = check(method, url.path, url.query, body)
        record = {
            "time": time.time(), "mode": MODE, "method": method, "path": url.path,
            "raw_query": url.query, "params": params, "total": total, "lines": lines,
            "bytes": len(body), "head": head, "errors": errors,
            "content_type": self.headers.get("Content-Type"),
        }
        with LOCK, open(LOG_FILE, "a") as f:
            f.write(json.dumps(record) + "\n")
        if MODE == "hang":
            time.sleep(LIFETIME)  # accepted, read, never answered
            return
        status = {"ok": 200, "fail": 500, "reject": 400}[MODE]
        reply = b"" if status == 200 else b"internal error (test)\n"
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(PORT_FILE + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(PORT_FILE + ".tmp", PORT_FILE)
    threading.Timer(LIFETIME, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
