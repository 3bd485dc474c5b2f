"""What S3 checks of a request body, as the body streams past (stdlib only).

`BodyCheck(head, query)` reads the request head; `early()` is an error known from the
head alone (a checksum header that is no valid value); `feed(data)` takes each payload
piece as it passes (HTTP chunk framing already removed); `verdict()` at the end: None
when the body is what the head says, else the `VerifyError` S3 answers with:

| what the request says | checked | S3's answer on a mismatch |
|---|---|---|
| `Content-MD5` | MD5 of the body | 400 `BadDigest` "The Content-MD5 you specified did not match what we received." (400 `InvalidDigest` when it is no base64 MD5) |
| `x-amz-checksum-<alg>` on a PUT or a POST that is not CompleteMultipartUpload (there it is the whole object's value) | the algorithm over the body | 400 `BadDigest` "The <ALG> you specified did not match the calculated checksum." (400 `InvalidRequest` "Value for x-amz-checksum-<alg> header is invalid." when it is no base64 value of the algorithm's size) |
| aws-chunked (`Content-Encoding: aws-chunked` or a `STREAMING-...` `x-amz-content-sha256`) | the chunks decode (`AwsChunkedDecoder`); the decoded length is `x-amz-decoded-content-length`; the checksum the trailer names (`x-amz-trailer`) is over the decoded bytes and equals the trailer's value | 400 `IncompleteBody` / `BadDigest`; a trailer that is missing or names another header: 400 `MalformedTrailerError` |

`x-amz-content-sha256` is the SigV4 verifier's (server.py), as before.
"""
import base64
import binascii
import hashlib

from .checksums import SIZES, Digest
from .sigv4 import VerifyError

CHECKSUM_PREFIX = "x-amz-checksum-"


def bad_digest(what):
    if what == "Content-MD5":
        return VerifyError("BadDigest", "The Content-MD5 you specified did not match what we received.", 400)
    return VerifyError("BadDigest", f"The {what.upper()} you specified did not match the calculated checksum.", 400)


def decode_value(alg, value):
    """The digest bytes of a base64 value of `alg`, or None when it is not one."""
    try:
        raw = base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == SIZES[alg] else None


class AwsChunkedDecoder:
    """Decodes an aws-chunked body fed in pieces of any size:
    `<hex size>[;chunk-signature=...]\\r\\n<bytes>\\r\\n` ... `0[;...]\\r\\n` then trailer lines
    `name:value\\r\\n` and a final `\\r\\n`. `feed()` returns the decoded bytes of a piece;
    `error` is set (and stays) at the first malformed byte; `done` after the final CRLF."""

    MAX_LINE = 4096

    def __init__(self):
        self.buf = bytearray()
        self.state = "size"     # size, data, data_crlf, trailer, done
        self.left = 0
        self.trailers = {}
        self.error = None
        self.done = False
        self.decoded = 0

    def fail(self, why):
        if self.error is None:
            self.error = why
        return b""

    def feed(self, piece):
        if self.error is not None or self.done:
            if piece and self.done:
                return self.fail("bytes after the end of the aws-chunked body")
            return b""
        self.buf += piece
        out = bytearray()
        while self.buf and self.error is None and not self.done:
            if self.state == "data":
                take = min(self.left, len(self.buf))
                out += self.buf[:take]
                del self.buf[:take]
                self.left -= take
                self.decoded += take
                if self.left == 0:
                    self.state = "data_crlf"
                continue
            if self.state == "data_crlf":
                if len(self.buf) < 2:
                    break
                if self.buf[:2] != b"\r\n":
                    return bytes(out) + self.fail("a chunk is not followed by CRLF")
                del self.buf[:2]
                self.state = "size"
                continue
            end = self.buf.find(b"\r\n")
            if end < 0:
                if len(self.buf) > self.MAX_LINE:
                    return bytes(out) + self.fail("a line longer than 4096 bytes")
                break
            line = bytes(self.buf[:end])
            del self.buf[:end + 2]
            if self.state == "size":
                size_text = line.split(b";", 1)[0].strip()
                try:
                    if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                        raise ValueError
                    n = int(size_text, 16)
                except ValueError:
                    return bytes(out) + self.fail(f"bad chunk size line {line[:40]!r}")
                if n == 0:
                    self.state = "trailer"
                else:
                    self.left = n
                    self.state = "data"
            else:  # trailer lines, then an empty line
                if line == b"":
                    self.done = True
                    break
                name, sep, value = line.partition(b":")
                if not sep:
                    return bytes(out) + self.fail(f"bad trailer line {line[:40]!r}")
                self.trailers[name.decode("latin-1").strip().lower()] = value.decode("latin-1").strip()
        return bytes(out)


class BodyCheck:
    def __init__(self, method, query, headers):
        """`headers`: (name, value) pairs as received."""
        self.hdrs = {}
        for name, value in headers:
            self.hdrs.setdefault(name.lower(), value)
        self._early = None
        self.md5 = None
        self.checks = []        # (alg, expected bytes, Digest)
        self.chunked = None
        self.trailer_alg = None
        self.decoded_length = None
        h = self.hdrs
        is_complete = method == "POST" and "uploadId=" in query
        if "content-md5" in h:
            want = decode_value_md5(h["content-md5"])
            if want is None:
                self._early = VerifyError("InvalidDigest", "The Content-MD5 you specified is not valid.", 400)
                return
            self.md5 = (want, hashlib.md5())
        if method in ("PUT", "POST") and not is_complete:
            for name, value in h.items():
                if not name.startswith(CHECKSUM_PREFIX):
                    continue
                alg = name[len(CHECKSUM_PREFIX):]
                if alg not in SIZES:
                    continue    # x-amz-checksum-mode, -type, -algorithm
                want = decode_value(alg, value)
                if want is None:
                    self._early = VerifyError("InvalidRequest", f"Value for {name} header is invalid.", 400)
                    return
                self.checks.append((alg, want, Digest(alg)))
            if len(self.checks) > 1:
                self._early = VerifyError("InvalidRequest", "Expecting a single x-amz-checksum- header. "
                                          "Multiple checksum Types are not allowed.", 400)
                return
        sha = h.get("x-amz-content-sha256", "")
        if "aws-chunked" in h.get("content-encoding", "").lower() or sha.startswith("STREAMING-"):
            self.chunked = AwsChunkedDecoder()
            try:
                self.decoded_length = int(h["x-amz-decoded-content-length"])
            except (KeyError, ValueError):
                self._early = VerifyError("MissingContentLength", "You must provide the Content-Length "
                                          "HTTP header.", 411)
                return
            trailer = h.get("x-amz-trailer", "").strip().lower()
            if trailer:
                alg = trailer[len(CHECKSUM_PREFIX):] if trailer.startswith(CHECKSUM_PREFIX) else ""
                if alg not in SIZES:
                    self._early = VerifyError("InvalidRequest", f"The value specified in the x-amz-trailer "
                                              f"header is not supported", 400)
                    return
                self.trailer_alg = (trailer, alg, Digest(alg))

    def early(self):
        return self._early

    def active(self):
        return self._early is None and (self.md5 is not None or self.checks or self.chunked is not None)

    def feed(self, data):
        """`data`: the next payload bytes as received (aws-chunked framing included)."""
        if self.chunked is not None:
            data = self.chunked.feed(data)
            if self.trailer_alg is not None:
                self.trailer_alg[2].update(data)
        if self.md5 is not None:
            self.md5[1].update(data)
        for _alg, _want, d in self.checks:
            d.update(data)

    def verdict(self):
        if self._early is not None:
            return self._early
        if self.md5 is not None and self.md5[1].digest() != self.md5[0]:
            return bad_digest("Content-MD5")
        if self.chunked is not None:
            c = self.chunked
            if c.error is not None or not c.done:
                return VerifyError("IncompleteBody", "The request body terminated unexpectedly"
                                   + (f" ({c.error})" if c.error else ""), 400)
            if c.decoded != self.decoded_length:
                return VerifyError("IncompleteBody", "You did not provide the number of bytes specified by "
                                   "the x-amz-decoded-content-length HTTP header", 400)
            if self.trailer_alg is not None:
                name, alg, d = self.trailer_alg
                got = c.trailers.get(name)
                if got is None:
                    return VerifyError("MalformedTrailerError", "The request contained trailing data that was "
                                       "not well-formed or did not conform to our published schema.", 400)
                want = decode_value(alg, got)
                if want is None:
                    return VerifyError("InvalidRequest", f"Value for {name} trailing header is invalid.", 400)
                if d.value() != want:
                    return bad_digest(alg)
        for alg, want, d in self.checks:
            if d.value() != want:
                return bad_digest(alg)
        return None


def decode_value_md5(value):
    try:
        raw = base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 16 else None
