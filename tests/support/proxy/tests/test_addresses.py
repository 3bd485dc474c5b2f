"""The proxy on several loopback addresses, each serving, blackholing or refusing."""
import http.client
import os
import socket
import tempfile
import unittest

import common
from proxy.certs import make_certs
from proxy.server import ProxyThread

EXTRA = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]


class Addresses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="floe-proxy-addr-")
        cls.certs = make_certs(os.path.join(cls.tmp, "ca"))
        cls.px = ProxyThread(common.moto_url(), tls_cert=cls.certs["cert"], tls_key=cls.certs["key"],
                             log_path=os.path.join(cls.tmp, "proxy.log"), addresses=EXTRA).start()
        cls.port = cls.px.proxy.port

    @classmethod
    def tearDownClass(cls):
        cls.px.stop()

    def setUp(self):
        self.px.reset(all=True)

    def get(self, address, port=None):
        c = http.client.HTTPConnection(address, port or self.port, timeout=10)
        try:
            c.request("GET", "/")
            return c.getresponse().status
        finally:
            c.close()

    def modes(self, body):
        return self.px.control("POST", "/addresses", body)

    def test_every_address_serves_and_counts_its_connections(self):
        for a in ["127.0.0.1"] + EXTRA:
            self.assertEqual(self.get(a), 200)
        self.assertEqual(self.get("127.0.0.3"), 200)
        by = self.px.stats()["by_address"]
        self.assertEqual(by, {"127.0.0.1": 1, "127.0.0.2": 1, "127.0.0.3": 2, "127.0.0.4": 1})
        self.assertEqual(self.px.stats()["connections"], 5)

    def test_tls_listener_is_on_every_address_too(self):
        import ssl
        ctx = ssl.create_default_context(cafile=self.certs["ca"])
        ctx.check_hostname = False  # the certificate names 127.0.0.1 and localhost only
        c = http.client.HTTPSConnection("127.0.0.4", self.px.proxy.tls_port, timeout=10, context=ctx)
        try:
            c.request("GET", "/")
            self.assertEqual(c.getresponse().status, 200)
        finally:
            c.close()
        self.assertEqual(self.px.stats()["by_address"]["127.0.0.4"], 1)

    def test_refuse_closes_the_listener_and_serve_reopens_it(self):
        self.assertEqual(self.modes({"127.0.0.3": "refuse"})["modes"]["127.0.0.3"], "refuse")
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.3", self.port), timeout=5).close()
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.3", self.px.proxy.tls_port), timeout=5).close()
        self.assertEqual(self.get("127.0.0.2"), 200)  # the others go on
        self.modes({"127.0.0.3": "serve"})
        self.assertEqual(self.get("127.0.0.3"), 200)  # listening again at once
        by = self.px.stats()["by_address"]
        self.assertEqual(by["127.0.0.3"], 1)

    def test_blackhole_accepts_reads_and_never_answers(self):
        self.modes({"127.0.0.2": "blackhole"})
        s = socket.create_connection(("127.0.0.2", self.port), timeout=5)
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(0.5)
            with self.assertRaises(socket.timeout):
                s.recv(1)
        finally:
            s.close()
        stats = self.px.stats()
        self.assertEqual(stats["by_address"]["127.0.0.2"], 1)
        self.assertEqual(stats["requests"], 0)  # never read as a request
        self.assertEqual(self.get("127.0.0.1"), 200)

    def test_connections_on_extra_addresses_have_tcp_nodelay(self):
        # A reply's head and body go out in two writes: without TCP_NODELAY
        # the body waits for the client's delayed ACK (40 ms a GET).
        import asyncio
        from proxy.addresses import Addresses as Listeners

        async def accept_one(address):
            seen = asyncio.get_running_loop().create_future()

            def handler(_r, w):
                sock = w.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                w.close()

            srv = await asyncio.start_server(handler, sock=Listeners._socket(address, 0))
            port = srv.sockets[0].getsockname()[1]
            _r, w = await asyncio.open_connection(address, port)
            try:
                return await asyncio.wait_for(seen, 10)
            finally:
                w.close()
                srv.close()

        for a in EXTRA:
            self.assertNotEqual(asyncio.run(accept_one(a)), 0, a)

    def test_reset_puts_every_address_back_to_serve(self):
        self.modes({"127.0.0.2": "blackhole", "127.0.0.4": "refuse"})
        self.px.reset()
        self.assertEqual(set(self.px.control("GET", "/addresses")["modes"].values()), {"serve"})
        self.assertEqual(self.get("127.0.0.4"), 200)
        self.assertEqual(self.get("127.0.0.2"), 200)

    def test_bad_modes_are_refused_naming_what_was_wrong(self):
        for body, words in [({"127.0.0.9": "serve"}, "not an address of this proxy"),
                            ({"127.0.0.2": "sleep"}, "mode 'sleep'"),
                            ({"127.0.0.1": "refuse"}, "only an extra one can refuse"),
                            ({}, "the body must be")]:
            with self.assertRaises(RuntimeError) as cm:
                self.modes(body)
            self.assertIn(words, str(cm.exception))
            self.assertIn("400", str(cm.exception))
        self.assertEqual(self.get("127.0.0.2"), 200)  # nothing was applied


if __name__ == "__main__":
    unittest.main()
