"""floe's fault-injecting test proxy: a reverse proxy with rules and a SigV4 verifier
(server.Proxy / server.ProxyThread), a forward proxy for CONNECT and absolute-URI
requests (connect_proxy), and a throw-away CA helper (certs). See README.md."""
