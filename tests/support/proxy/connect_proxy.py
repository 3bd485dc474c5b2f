"""A tiny forward proxy for HTTPS_PROXY / HTTP_PROXY tests: CONNECT tunnels and
absolute-URI HTTP forwarding, loopback targets only, with counters."""
import asyncio
import json
import threading
import urllib.parse

from . import http1
from .http1 import HttpError
from .server import make_logger

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


class ForwardProxy:
    def __init__(self, host="127.0.0.1", port=0, control_port=0, log_path=None):
        self.host = host
        self.want_port = port
        self.want_control = control_port
        self.log = make_logger(log_path, "forward")
        self.servers = []
        self.tasks = set()
        self.port = self.control_port = None
        self.reset()

    def reset(self):
        self.connections = 0
        self.tunnels = 0
        self.tunnels_open = 0
        self.http_requests = 0
        self.refused = 0
        self.targets = []

    def describe(self):
        return {"connections": self.connections, "tunnels": self.tunnels,
                "tunnels_open": self.tunnels_open, "http_requests": self.http_requests,
                "refused": self.refused, "targets": list(self.targets)}

    async def start(self):
        s = await asyncio.start_server(self._client, self.host, self.want_port, limit=http1.MAX_HEAD)
        self.servers.append(s)
        self.port = s.sockets[0].getsockname()[1]
        if self.want_control is not None:
            c = await asyncio.start_server(self._control, self.host, self.want_control,
                                           limit=http1.MAX_HEAD)
            self.servers.append(c)
            self.control_port = c.sockets[0].getsockname()[1]
        self.log.info("forward proxy on %s:%s (control %s)", self.host, self.port, self.control_port)

    async def close(self):
        for s in self.servers:
            s.close()
        tasks = list(self.tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def control(self, method, path):
        path = path.rstrip("/")
        if method == "GET" and path == "/stats":
            return 200, self.describe()
        if method == "POST" and path == "/reset":
            self.reset()
            return 200, {"ok": True}
        return 404, {"error": f"no route {method} {path}"}

    async def _control(self, reader, writer):
        try:
            while True:
                head = await http1.read_head(reader)
                if head is None:
                    return
                await http1.read_body(reader, http1.request_framing(head), 1 << 20)
                status, obj = self.control(head.method, head.path)
                writer.write(http1.build_reply(status, [("Content-Type", "application/json")],
                                               json.dumps(obj).encode()))
                await writer.drain()
        except (HttpError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _client(self, reader, writer):
        self.connections += 1
        task = asyncio.current_task()
        self.tasks.add(task)
        upstreams = {}
        try:
            while True:
                head = await http1.read_head(reader)
                if head is None:
                    return
                if head.method == "CONNECT":
                    await self._tunnel(head, reader, writer)
                    return
                if not await self._forward(head, reader, writer, upstreams):
                    return
        except (HttpError, ConnectionError, asyncio.IncompleteReadError, OSError) as e:
            self.log.info("forward connection ended: %s", type(e).__name__)
        except asyncio.CancelledError:
            pass
        finally:
            for _r, w in upstreams.values():
                w.close()
            writer.close()
            self.tasks.discard(task)

    async def _refuse(self, writer, why):
        self.refused += 1
        self.log.info("refused: %s", why)
        writer.write(http1.build_reply(403, [("Connection", "close")], why + "\n"))
        await writer.drain()

    async def _tunnel(self, head, reader, writer):
        host, _, port = head.target.rpartition(":")
        if host not in LOOPBACK or not port.isdigit():
            await self._refuse(writer, "only loopback CONNECT targets are allowed")
            return
        try:
            ur, uw = await asyncio.open_connection(host.strip("[]"), int(port))
        except OSError:
            writer.write(http1.build_reply(502, [("Connection", "close")], "connect failed\n"))
            await writer.drain()
            return
        self.tunnels += 1
        self.tunnels_open += 1
        self.targets.append(head.target)
        self.log.info("tunnel to %s", head.target)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()

        async def pipe(src, dst):
            try:
                while True:
                    data = await src.read(http1.PIECE)
                    if not data:
                        break
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                try:
                    dst.write_eof()
                except (OSError, RuntimeError):
                    pass
        try:
            await asyncio.gather(pipe(reader, uw), pipe(ur, writer))
        finally:
            self.tunnels_open -= 1
            uw.close()

    async def _forward(self, head, reader, writer, upstreams):
        u = urllib.parse.urlsplit(head.target)
        if u.scheme != "http" or not u.hostname:
            await self._refuse(writer, "absolute http:// URI or CONNECT expected")
            return False
        if u.hostname not in LOOPBACK:
            await self._refuse(writer, "only loopback targets are allowed")
            return False
        key = (u.hostname, u.port or 80)
        self.http_requests += 1
        self.targets.append(f"{key[0]}:{key[1]}")
        origin = (u.path or "/") + (("?" + u.query) if u.query else "")
        lines = [f"{head.method} {origin} {head.start[2]}"]
        lines += [f"{k}: {v}" for k, v in head.headers if not k.lower().startswith("proxy-")]
        out = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if key not in upstreams or upstreams[key][0].at_eof():
            upstreams[key] = await asyncio.open_connection(*key)
        ur, uw = upstreams[key]
        uw.write(out)
        async for r, _d in http1.iter_body(reader, http1.request_framing(head)):
            uw.write(r)
            await uw.drain()
        await uw.drain()
        while True:
            rh = await http1.read_head(ur, is_request=False)
            if rh is None:
                raise ConnectionResetError("upstream closed")
            if not (100 <= rh.status < 200):
                break
            writer.write(rh.raw)
        fr = http1.response_framing(rh, head.method)
        writer.write(rh.raw)
        async for r, _d in http1.iter_body(ur, fr):
            writer.write(r)
            await writer.drain()
        await writer.drain()
        if fr[0] == "eof" or "close" in rh.tokens("connection"):
            uw.close()
            del upstreams[key]
            return False
        return "close" not in head.tokens("connection")


class ForwardProxyThread:
    """ForwardProxy on its own loop in a background thread (for Python tests)."""

    def __init__(self, **kw):
        kw.setdefault("control_port", None)
        self.proxy = ForwardProxy(**kw)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True, name="floe-fwd-proxy")
        self._ready = threading.Event()

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.proxy.start())
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.proxy.close())
        self.loop.close()

    def __enter__(self):
        self.thread.start()
        self._ready.wait(30)
        return self

    def __exit__(self, *exc):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.proxy.port}"

    def stats(self):
        async def call():
            return self.proxy.describe()
        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(10)
