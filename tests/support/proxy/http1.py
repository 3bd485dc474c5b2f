"""Minimal HTTP/1.1 message framing on asyncio streams, byte-exact.

Heads are kept as the raw bytes received (so a forwarded request is the
request the client signed) and parsed into a list of (name, value) pairs for
matching and verification. Bodies are streamed piece by piece; nothing here
buffers a whole body unless the caller asks for it.
"""
import asyncio

MAX_HEAD = 256 * 1024
PIECE = 64 * 1024


class HttpError(Exception):
    """Malformed message from a peer."""


class Head:
    """A parsed request or response head.

    raw      -- the exact bytes of the head, including the closing blank line
    start    -- (method, target, version) for a request, (version, status, reason) for a reply
    headers  -- [(name, value)] in order, names as sent, obs-folded lines joined with a space
    """

    def __init__(self, raw, start, headers):
        self.raw = raw
        self.start = start
        self.headers = headers

    def get(self, name, default=None):
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return default

    def get_all(self, name):
        name = name.lower()
        return [v for k, v in self.headers if k.lower() == name]

    def has(self, name):
        return self.get(name) is not None

    def tokens(self, name):
        out = []
        for v in self.get_all(name):
            out.extend(t.strip().lower() for t in v.split(",") if t.strip())
        return out

    # request helpers
    @property
    def method(self):
        return self.start[0]

    @property
    def target(self):
        return self.start[1]

    @property
    def path(self):
        return self.start[1].partition("?")[0]

    @property
    def query(self):
        return self.start[1].partition("?")[2]

    # reply helper
    @property
    def status(self):
        return int(self.start[1])


def parse_head(raw, is_request):
    """Parses head bytes (CRLF or bare LF line ends) into a Head."""
    text = raw.decode("latin-1")
    lines = text.split("\n")
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    while lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise HttpError("empty head")
    first = lines[0]
    if is_request:
        parts = first.split(" ")
        if len(parts) < 3 or not parts[-1].startswith("HTTP/"):
            raise HttpError("bad request line")
        # A target with raw spaces (as in some AWS test vectors) is kept whole.
        start = (parts[0], " ".join(parts[1:-1]), parts[-1])
    else:
        parts = first.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise HttpError("bad status line")
        start = (parts[0], parts[1], parts[2] if len(parts) > 2 else "")
    headers = []
    for ln in lines[1:]:
        if ln[:1] in (" ", "\t") and headers:
            k, v = headers[-1]
            headers[-1] = (k, v + " " + ln.strip())
            continue
        k, sep, v = ln.partition(":")
        if not sep or not k or k != k.strip():
            raise HttpError("bad header line")
        headers.append((k, v.strip(" \t")))
    return Head(raw, start, headers)


def utf8_head(head):
    """Re-reads a latin-1 decoded head string as UTF-8 (targets may carry raw UTF-8)."""
    return head.encode("latin-1").decode("utf-8", "surrogateescape")


async def read_head(reader, is_request=True):
    """Reads one head. Returns None on a clean EOF before any byte."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial.strip():
            return None
        raise HttpError("connection closed inside a head") from None
    except asyncio.LimitOverrunError:
        raise HttpError("head too large") from None
    if is_request:
        # tolerate stray CRLFs between requests (RFC 9112 2.2)
        raw = raw.lstrip(b"\r\n")
        if not raw:
            return await read_head(reader, is_request)
    return parse_head(raw, is_request)


def request_framing(head):
    """('length', n) or ('chunked', None) for a request body."""
    if "chunked" in head.tokens("transfer-encoding"):
        return ("chunked", None)
    cl = head.get("content-length")
    if cl is not None:
        try:
            n = int(cl)
        except ValueError:
            raise HttpError("bad content-length") from None
        if n < 0:
            raise HttpError("bad content-length")
        return ("length", n)
    return ("length", 0)


def response_framing(head, request_method):
    """('length', n), ('chunked', None), ('none', 0) or ('eof', None) for a reply body."""
    st = head.status
    if request_method == "HEAD" or 100 <= st < 200 or st in (204, 304):
        return ("none", 0)
    if "chunked" in head.tokens("transfer-encoding"):
        return ("chunked", None)
    cl = head.get("content-length")
    if cl is not None:
        try:
            return ("length", int(cl))
        except ValueError:
            raise HttpError("bad content-length in reply") from None
    return ("eof", None)


async def iter_body(reader, framing):
    """Yields (raw_piece, data_piece) tuples for a body: raw_piece is what goes on
    the wire (chunk framing included), data_piece the payload bytes in it."""
    kind, n = framing
    if kind == "none":
        return
    if kind == "length":
        left = n
        while left > 0:
            piece = await reader.read(min(PIECE, left))
            if not piece:
                raise HttpError("connection closed inside a body")
            left -= len(piece)
            yield piece, piece
        return
    if kind == "eof":
        while True:
            piece = await reader.read(PIECE)
            if not piece:
                return
            yield piece, piece
    # chunked
    while True:
        try:
            line = await reader.readuntil(b"\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            raise HttpError("bad chunk size line") from None
        size_txt = line.split(b";", 1)[0].strip()
        try:
            size = int(size_txt, 16)
        except ValueError:
            raise HttpError("bad chunk size") from None
        if size == 0:
            trailer = b""
            while True:
                try:
                    tl = await reader.readuntil(b"\r\n")
                except asyncio.IncompleteReadError:
                    raise HttpError("connection closed in a trailer") from None
                trailer += tl
                if tl == b"\r\n":
                    break
            yield line + trailer, b""
            return
        yield line, b""
        left = size
        while left > 0:
            piece = await reader.read(min(PIECE, left))
            if not piece:
                raise HttpError("connection closed inside a chunk")
            left -= len(piece)
            yield piece, piece
        try:
            crlf = await reader.readexactly(2)
        except asyncio.IncompleteReadError:
            raise HttpError("connection closed after a chunk") from None
        if crlf != b"\r\n":
            raise HttpError("chunk not followed by CRLF")
        yield crlf, b""


async def read_body(reader, framing, limit=None):
    """Reads a whole body; returns (raw, data). Raises HttpError past limit."""
    raw = bytearray()
    data = bytearray()
    async for r, d in iter_body(reader, framing):
        raw += r
        data += d
        if limit is not None and len(raw) > limit:
            raise HttpError("body larger than the buffer limit")
    return bytes(raw), bytes(data)


def decode_chunked(raw):
    """Decodes a complete chunked body held in memory (best effort)."""
    out = bytearray()
    i = 0
    while True:
        j = raw.find(b"\r\n", i)
        if j < 0:
            return bytes(out)
        try:
            size = int(raw[i:j].split(b";", 1)[0].strip() or b"0", 16)
        except ValueError:
            return bytes(out)
        if size == 0:
            return bytes(out)
        out += raw[j + 2:j + 2 + size]
        i = j + 2 + size + 2


REASONS = {
    100: "Continue", 200: "OK", 204: "No Content", 400: "Bad Request", 403: "Forbidden",
    404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 411: "Length Required",
    412: "Precondition Failed", 500: "Internal Server Error", 502: "Bad Gateway",
    503: "Service Unavailable", 504: "Gateway Timeout",
}


def build_reply(status, headers=(), body=b"", head_only=False, reason=None):
    """Serialises a reply with a correct Content-Length (omitted bodies for HEAD)."""
    if isinstance(body, str):
        body = body.encode()
    reason = reason or REASONS.get(status, "Status")
    lines = [f"HTTP/1.1 {status} {reason}"]
    have_len = False
    for k, v in (headers.items() if isinstance(headers, dict) else headers):
        if k.lower() == "content-length":
            have_len = True
        lines.append(f"{k}: {v}")
    if not have_len and not head_only:
        lines.append(f"Content-Length: {len(body)}")
    out = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return out if head_only else out + body


def add_connection_close(raw):
    """Reply bytes with "Connection: close" in the head (unchanged when it says so already)."""
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        return raw
    for ln in raw[:end].split(b"\r\n")[1:]:
        if ln.lower().startswith(b"connection:") and b"close" in ln.lower():
            return raw
    return raw[:end] + b"\r\nConnection: close" + raw[end:]


def drop_connection_close(raw_head):
    """Removes "Connection: close" lines from raw head bytes (other tokens are kept)."""
    lines = raw_head.split(b"\r\n")
    out = []
    for ln in lines:
        if ln.lower().startswith(b"connection:"):
            toks = [t.strip() for t in ln.split(b":", 1)[1].split(b",")]
            toks = [t for t in toks if t and t.lower() != b"close"]
            if not toks:
                continue
            ln = b"Connection: " + b", ".join(toks)
        out.append(ln)
    return b"\r\n".join(out)


def fix_content_length(raw):
    """Sets Content-Length in raw reply bytes to the length of the body after the head."""
    sep = raw.find(b"\r\n\r\n")
    if sep < 0:
        raw = raw + (b"\r\n\r\n" if not raw.endswith(b"\r\n") else b"\r\n")
        sep = raw.find(b"\r\n\r\n")
    head, body = raw[:sep], raw[sep + 4:]
    lines = head.split(b"\r\n")
    lines = [lines[0]] + [ln for ln in lines[1:] if not ln.lower().startswith(b"content-length:")]
    lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
