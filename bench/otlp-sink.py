#!/usr/bin/env python3
"""A do-nothing OTLP/HTTP trace receiver for benchmarks (issue 32: P2 with tracing on).

Answers every POST (e.g. /v1/traces) with 200 and an empty protobuf body after reading it, and counts the
requests and bytes; prints the counts on SIGTERM/SIGINT. Listens on 127.0.0.1:PORT (argv[1], default 4318).
"""
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {"requests": 0, "bytes": 0}


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        counts["requests"] += 1
        counts["bytes"] += n
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 4318
    server = ThreadingHTTPServer(("127.0.0.1", port), Sink)

    def stop(*_):
        print(f"otlp-sink: {counts['requests']} requests, {counts['bytes']} bytes", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()


if __name__ == "__main__":
    main()
