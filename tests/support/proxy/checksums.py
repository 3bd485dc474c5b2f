"""The checksums S3 carries, computed here independently of floe (stdlib only).

CRC32 is zlib's; SHA-1 and SHA-256 are hashlib's; CRC32C (Castagnoli, reflected
0x82F63B78) and CRC64NVME (reflected 0x9A6C9329AC4BC9B5, the NVMe spec's CRC-64)
are table-driven, a byte at a time: in C (crc_native.c, compiled with the machine's
C compiler on first use and loaded with ctypes: pure Python runs at a few MB/s,
too slow for the proxy's 100 MiB bodies), else in Python. `self_check()` compares
both ways with the catalogue's check values.

`Digest(name)`: update(bytes), value() -> the big-endian digest bytes, as S3 carries
them base64-encoded. Names are S3's, lower case: crc32, crc32c, crc64nvme, sha1, sha256.
"""
import ctypes
import ctypes.util
import hashlib
import zlib

SIZES = {"crc32": 4, "crc32c": 4, "crc64nvme": 8, "sha1": 20, "sha256": 32}


def _table(poly):
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        t.append(c)
    return t


_CRC32C = (_table(0x82F63B78), 0xFFFFFFFF)
_CRC64NVME = (_table(0x9A6C9329AC4BC9B5), 0xFFFFFFFFFFFFFFFF)


def _py_crc(spec, crc, data):
    """Continues a reflected CRC whose register (without the final xor) is crc^mask."""
    table, mask = spec
    c = crc ^ mask
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ mask


def _load_native():
    """crc_native.c, compiled once per source version into the temporary directory."""
    import os
    import shutil
    import subprocess
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "crc_native.c")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    with open(src, "rb") as fh:
        tag = hashlib.sha256(fh.read()).hexdigest()[:16]
    lib_path = os.path.join(tempfile.gettempdir(), f"floe-proxy-crc-{os.getuid()}-{tag}.so")
    if not os.path.exists(lib_path):
        tmp = f"{lib_path}.{os.getpid()}"
        r = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", tmp, src], capture_output=True)
        if r.returncode != 0:
            return None
        os.replace(tmp, lib_path)
    try:
        lib = ctypes.CDLL(lib_path)
    except OSError:
        return None
    lib.proxy_crc_init()
    lib.proxy_crc32c.restype = ctypes.c_uint32
    lib.proxy_crc32c.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
    lib.proxy_crc64nvme.restype = ctypes.c_uint64
    lib.proxy_crc64nvme.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
    return lib


_NATIVE = _load_native()


def crc32c(data, crc=0, fast=True):
    if fast and _NATIVE is not None:
        return _NATIVE.proxy_crc32c(crc, bytes(data), len(data))
    return _py_crc(_CRC32C, crc, data)


def crc64nvme(data, crc=0, fast=True):
    if fast and _NATIVE is not None:
        return _NATIVE.proxy_crc64nvme(crc, bytes(data), len(data))
    return _py_crc(_CRC64NVME, crc, data)


class Digest:
    def __init__(self, name):
        name = name.lower()
        if name not in SIZES:
            raise ValueError(f"unknown checksum algorithm {name!r}")
        self.name = name
        self._crc = 0
        self._h = hashlib.new(name) if name in ("sha1", "sha256") else None

    def update(self, data):
        if self._h is not None:
            self._h.update(data)
        elif self.name == "crc32":
            self._crc = zlib.crc32(data, self._crc)
        elif self.name == "crc32c":
            self._crc = crc32c(data, self._crc)
        else:
            self._crc = crc64nvme(data, self._crc)

    def value(self):
        if self._h is not None:
            return self._h.digest()
        return self._crc.to_bytes(SIZES[self.name], "big")


def self_check():
    """Known values (check strings of the CRC catalogue); the C code against the Python."""
    assert crc32c(b"123456789", fast=False) == 0xE3069283
    assert crc64nvme(b"123456789", fast=False) == 0xAE8B14860A799888
    data = bytes(range(256)) * 41 + b"tail"
    assert crc32c(data) == crc32c(data, fast=False)
    assert crc64nvme(data) == crc64nvme(data, fast=False)
    assert crc64nvme(data[100:], crc64nvme(data[:100])) == crc64nvme(data)
    return _NATIVE is not None
