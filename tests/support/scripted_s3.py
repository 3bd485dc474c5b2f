"""A loopback stand-in for S3 that answers by script: each request goes to
a Python function that writes whatever bytes it likes on the socket (a
reply cut short, a head trickled a byte at a time, a listing whose
continuation tokens loop). Hostile replies are this server's job, not
moto's. No signature is checked. Standard library only.

    from scripted_s3 import ScriptedS3, reply, list_page
    def script(conn, req):
        if req.method == "GET" and req.query.get("list-type") == "2":
            reply(conn, 200, list_page(["a", "b"]))
    with ScriptedS3(script) as s3:
        ... s3.endpoint ...

The script runs on the connection's own thread; it returns to read the
next request on the same connection, or raises CloseConnection (or lets
any socket error escape) to close it. `s3.requests` lists every request
seen, in order (method, target, headers, and the body of a Content-Length).

Run as a program it serves a generated listing, for the benchmark:

    python3 scripted_s3.py pages --keys 1000000 [--port P]

prints {"port": P} once listening, and answers ListObjectsV2 on any
bucket with KEYS keys "k/000000000"... in pages of max-keys (1000).
"""
import argparse
import json
import socket
import sys
import threading
import urllib.parse
from xml.sax.saxutils import escape


class CloseConnection(Exception):
    pass


class Request:
    def __init__(self, method, target, headers, body=b""):
        self.method = method
        self.target = target
        self.headers = headers  # lower-case name -> value
        self.body = body
        path, _, q = target.partition("?")
        self.path = urllib.parse.unquote(path)
        self.query = {k: v for k, v in urllib.parse.parse_qsl(q, keep_blank_values=True)}

    def header(self, name, default=""):
        return self.headers.get(name.lower(), default)


class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def read_request(self):
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        n = int(headers.get("content-length", "0") or 0)
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        body, self.buf = self.buf[:n], self.buf[n:]
        return Request(method, target, headers, body)

    def write(self, data):
        if isinstance(data, str):
            data = data.encode("latin-1")
        self.sock.sendall(data)


def reply(conn, status, body=b"", headers=None, reason="X"):
    """A whole reply with a Content-Length (unless headers give one)."""
    if isinstance(body, str):
        body = body.encode()
    h = {"x-amz-request-id": "SCRIPTED"}
    h.update(headers or {})
    if not any(k.lower() in ("content-length", "transfer-encoding") for k in h):
        h["Content-Length"] = str(len(body))
    head = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"
    conn.write(head.encode("latin-1") + body)


def list_page(keys, truncated=False, token="", prefixes=(), size=1):
    """A ListObjectsV2 reply body (keys url-encoded, as floe asks)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
           "<Name>b</Name><EncodingType>url</EncodingType>",
           f"<KeyCount>{len(keys) + len(prefixes)}</KeyCount>",
           f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>"]
    if token:
        out.append(f"<NextContinuationToken>{escape(token)}</NextContinuationToken>")
    for k in keys:
        out.append(f"<Contents><Key>{urllib.parse.quote(k, safe='/')}</Key>"
                   "<LastModified>2026-01-01T00:00:00.000Z</LastModified>"
                   f"<ETag>&quot;e&quot;</ETag><Size>{size}</Size><StorageClass>STANDARD</StorageClass></Contents>")
    for p in prefixes:
        out.append(f"<CommonPrefixes><Prefix>{urllib.parse.quote(p, safe='/')}</Prefix></CommonPrefixes>")
    out.append("</ListBucketResult>")
    return "".join(out).encode()


class ScriptedS3:
    def __init__(self, script, port=0):
        self.script = script
        self.requests = []
        self.lock = threading.Lock()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.conns = []
        self.stopping = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def count(self, method=None, has=None):
        """Requests seen, of `method`, with query parameter `has`."""
        with self.lock:
            reqs = list(self.requests)
        return sum(1 for r in reqs if (method is None or r.method == method) and (has is None or has in r.query))

    def count_where(self, pred):
        """Requests seen for which pred(request) holds."""
        with self.lock:
            reqs = list(self.requests)
        return sum(1 for r in reqs if pred(r))

    def close(self):
        self.stopping = True
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            for c in self.conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _accept(self):
        while not self.stopping:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.conns.append(sock)
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock):
        conn = Connection(sock)
        try:
            while True:
                req = conn.read_request()
                if req is None:
                    return
                with self.lock:
                    self.requests.append(req)
                self.script(conn, req)
        except (CloseConnection, OSError):
            pass
        finally:
            try:
                sock.close()
            except OSError:
                pass


def generated_pages(total):
    """A script listing `total` keys "k/%09d" a page at a time, tokens the next index."""
    def script(conn, req):
        if req.method != "GET" or req.query.get("list-type") != "2":
            reply(conn, 404, b"<Error><Code>NoSuchKey</Code><Message>only listings here</Message></Error>")
            return
        start = int(req.query.get("continuation-token", "0") or 0)
        n = int(req.query.get("max-keys", "1000") or 1000)
        end = min(total, start + n)
        keys = [f"k/{i:09d}" for i in range(start, end)]
        more = end < total
        reply(conn, 200, list_page(keys, truncated=more, token=str(end) if more else "", size=1024))
    return script


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["pages"])
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    s3 = ScriptedS3(generated_pages(a.keys), port=a.port)
    print(json.dumps({"port": s3.port}), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    s3.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
