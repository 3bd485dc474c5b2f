"""Command line: python3 tests/support/proxy [forward|certs] ... (see README.md)."""
import argparse
import asyncio
import json
import os
import signal
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "proxy"  # noqa: A001 - lets the relative imports below resolve

from proxy.certs import make_certs  # noqa: E402
from proxy.connect_proxy import ForwardProxy  # noqa: E402
from proxy.server import Proxy  # noqa: E402


def announce(info, ready_file):
    line = json.dumps(info)
    if ready_file:
        tmp = ready_file + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(line + "\n")
        os.replace(tmp, ready_file)
    print(line, flush=True)


async def serve(server, info_fn, ready_file):
    await server.start()
    announce(info_fn(), ready_file)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    await stop.wait()
    await server.close()


def main(argv):
    if argv[:1] == ["certs"]:
        if len(argv) != 2:
            sys.exit("usage: proxy certs DIR")
        print(json.dumps(make_certs(argv[1])))
        return
    if argv[:1] == ["forward"]:
        ap = argparse.ArgumentParser(prog="proxy forward")
        ap.add_argument("--port", type=int, default=0)
        ap.add_argument("--control-port", type=int, default=0)
        ap.add_argument("--log")
        ap.add_argument("--ready-file")
        a = ap.parse_args(argv[1:])
        fp = ForwardProxy(port=a.port, control_port=a.control_port, log_path=a.log)
        asyncio.run(serve(fp, lambda: {"port": fp.port, "control_port": fp.control_port},
                          a.ready_file))
        return
    ap = argparse.ArgumentParser(prog="proxy")
    ap.add_argument("--upstream", required=True, help="http://host:port of the server behind")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--control-port", type=int, default=0)
    ap.add_argument("--tls-port", type=int, default=0)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--log")
    ap.add_argument("--ready-file")
    ap.add_argument("--addresses", default="",
                    help="more loopback addresses to listen on at the same ports, comma-separated "
                         "(127.0.0.2,127.0.0.3,127.0.0.4); each can serve, blackhole or refuse")
    ap.add_argument("--verify", action="append", default=[], metavar="AKID=SECRET",
                    help="enable the verifier with this key (repeatable)")
    a = ap.parse_args(argv)
    if bool(a.tls_cert) != bool(a.tls_key):
        sys.exit("proxy: --tls-cert and --tls-key go together")
    px = Proxy(a.upstream, port=a.port, control_port=a.control_port, tls_port=a.tls_port,
               tls_cert=a.tls_cert, tls_key=a.tls_key, log_path=a.log,
               addresses=[x.strip() for x in a.addresses.split(",") if x.strip()])
    if a.verify:
        secrets = dict(kv.split("=", 1) for kv in a.verify)
        px.control("POST", "/verify", {"enabled": True, "secrets": secrets})
    asyncio.run(serve(px, lambda: {"port": px.port, "control_port": px.control_port,
                                   "tls_port": px.tls_port}, a.ready_file))


if __name__ == "__main__":
    main(sys.argv[1:])
