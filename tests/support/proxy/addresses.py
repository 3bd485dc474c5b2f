"""Several loopback addresses for one reverse proxy, and what each does.

The proxy listens on its host (127.0.0.1) and, with `--addresses`, on more
loopback addresses at the same ports (127.0.0.2 ... all route to loopback
on Linux), so that a client given every address of one name (floe's
`resolve_overrides`) can be shown spreading its connections, and what it
does when one address misbehaves. Each address has a mode:

- `serve`: a proxy like any other (the default);
- `blackhole`: accepts connections (TLS handshake included) and reads what
  comes, never answering (a front-end that hangs);
- `refuse`: no listener at all: a connection is refused (an extra address
  only).

Connections are counted per address (`GET /stats` -> `by_address`). See
README.md, "Addresses".
"""
import asyncio
import socket

MODES = ("serve", "blackhole", "refuse")


class AddressError(ValueError):
    pass


class Addresses:
    def __init__(self, main_host, extra=()):
        self.main = main_host
        self.extra = [a for a in extra if a and a != main_host]
        for a in self.extra:
            try:
                socket.inet_aton(a)
            except OSError:
                raise AddressError(f"--addresses: {a!r} is not an IPv4 address") from None
        self.modes = {}          # address -> mode, absent: serve
        self.connections = {}    # address -> connections accepted
        self.listeners = []      # [handler, port, ssl_ctx, limit, {address: server}]

    def all(self):
        return [self.main] + self.extra

    # listening ---------------------------------------------------------
    async def listen(self, handler, port, ssl_ctx, limit):
        """Listens on every extra address at `port` (the main one's)."""
        spec = [handler, port, ssl_ctx, limit, {}]
        self.listeners.append(spec)
        for a in self.extra:
            await self._open(spec, a)

    @staticmethod
    def _socket(address, port):
        # Bound and listening at once: a connection made right after a mode
        # change back to `serve` is queued, not refused. The protocol named:
        # asyncio sets TCP_NODELAY only on sockets whose proto is TCP, and an
        # accepted socket inherits it from its listener. With proto 0 the
        # proxy's reply head and body (two writes) met Nagle and the client's
        # delayed ACK: 40 ms per GET on these addresses only.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError as e:
            sock.close()
            raise AddressError(f"cannot listen on {address}:{port}: {e.strerror}") from None
        sock.listen(128)
        sock.setblocking(False)
        return sock

    async def _open(self, spec, address):
        handler, port, ssl_ctx, limit, servers = spec
        servers[address] = await asyncio.start_server(handler, sock=self._socket(address, port),
                                                      ssl=ssl_ctx, limit=limit)

    def _close(self, address):
        for spec in self.listeners:
            srv = spec[4].pop(address, None)
            if srv is not None:
                srv.close()

    def _reopen(self, address):
        loop = asyncio.get_running_loop()
        for spec in self.listeners:
            if address in spec[4]:
                continue
            handler, port, ssl_ctx, limit, servers = spec
            sock = self._socket(address, port)
            task = loop.create_task(asyncio.start_server(handler, sock=sock, ssl=ssl_ctx, limit=limit))
            servers[address] = _Pending(task)

    def close(self):
        for a in list(self.extra):
            self._close(a)

    # per connection ----------------------------------------------------
    def accepted(self, writer):
        """Counts a connection; returns its address's mode."""
        addr = (writer.get_extra_info("sockname") or ("?",))[0]
        self.connections[addr] = self.connections.get(addr, 0) + 1
        return self.modes.get(addr, "serve")

    @staticmethod
    async def blackhole(reader):
        """Reads and drops what the client sends until it closes: no answer."""
        while await reader.read(64 * 1024):
            pass

    # control -----------------------------------------------------------
    def describe(self):
        return {"addresses": self.all(),
                "modes": {a: self.modes.get(a, "serve") for a in self.all()},
                "connections": {a: self.connections.get(a, 0) for a in self.all()}}

    def set_modes(self, body):
        if not isinstance(body, dict) or not body:
            raise AddressError('the body must be {"ADDRESS": "serve"|"blackhole"|"refuse", ...}')
        for a, mode in body.items():
            if a not in self.all():
                raise AddressError(f"{a!r} is not an address of this proxy ({', '.join(self.all())})")
            if mode not in MODES:
                raise AddressError(f"mode {mode!r} for {a}: one of {', '.join(MODES)}")
            if mode == "refuse" and a == self.main:
                raise AddressError(f"{a} is the main address: only an extra one can refuse")
        for a, mode in body.items():
            self._apply(a, mode)

    def _apply(self, address, mode):
        was = self.modes.get(address, "serve")
        if mode == "refuse" and was != "refuse":
            self._close(address)
        elif mode != "refuse" and was == "refuse":
            self._reopen(address)
        if mode == "serve":
            self.modes.pop(address, None)
        else:
            self.modes[address] = mode

    def reset(self):
        for a in list(self.modes):
            self._apply(a, "serve")
        self.connections.clear()


class _Pending:
    """A listener being started (its socket already listens)."""

    def __init__(self, task):
        self.task = task

    def close(self):
        if self.task.done() and not self.task.cancelled() and self.task.exception() is None:
            self.task.result().close()
        else:
            self.task.add_done_callback(lambda t: t.cancelled() or t.exception() or t.result().close())
