"""A throw-away CA and a server certificate for 127.0.0.1 and localhost, made with the
openssl CLI. make_certs(dir) -> {"ca": ca.pem, "cert": server.pem, "key": server.key}."""
import os
import shutil
import subprocess
import tempfile


def _run(argv, cwd):
    r = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:2])} failed: {r.stdout.decode(errors='replace')}")


def make_certs(directory=None, days=30):
    if shutil.which("openssl") is None:
        raise RuntimeError("the openssl CLI is needed for test certificates: apt-get install openssl")
    d = directory or tempfile.mkdtemp(prefix="floe-test-ca-")
    os.makedirs(d, exist_ok=True)
    ext = os.path.join(d, "server.ext")
    with open(ext, "w") as fh:
        fh.write("basicConstraints=critical,CA:FALSE\n"
                 "keyUsage=critical,digitalSignature,keyEncipherment\n"
                 "extendedKeyUsage=serverAuth\n"
                 "subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
          "-out", "ca.pem", "-days", str(days), "-subj", "/CN=floe test CA",
          "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign"], d)
    _run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
          "-out", "server.csr", "-subj", "/CN=127.0.0.1"], d)
    _run(["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
          "-CAcreateserial", "-out", "server.pem", "-days", str(days), "-extfile", "server.ext"], d)
    return {"dir": d, "ca": os.path.join(d, "ca.pem"), "cert": os.path.join(d, "server.pem"),
            "key": os.path.join(d, "server.key")}
