"""An independent AWS Signature Version 4 verifier (hashlib/hmac only).

It canonicalises a request from the bytes as received (a Head from http1.py
or anything with .method, .target and .headers) and recomputes the signature.
Strings hold raw bytes decoded as latin-1, so a byte is a character.

S3 rules: the canonical URI is the raw path exactly as sent (no
normalisation, no re-encoding). Other services: dot segments and repeated
slashes are removed (when normalising) and each byte outside the unreserved
set is percent-encoded, '%' included (the "double encoding" of SigV4).
The query is split on '&', each name and value percent-decoded and
re-encoded with the unreserved set, then sorted; X-Amz-Signature is left out.
"""
import datetime
import hashlib
import hmac
import re

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
UNSIGNED = "UNSIGNED-PAYLOAD"
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_WS = re.compile(r"[ \t]+")


class VerifyError(Exception):
    """A request that fails verification: code (S3 error code), message, status."""

    def __init__(self, code, message, status=403):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def uri_encode(data, keep_slash):
    """Percent-encodes bytes (or a latin-1 str) outside the unreserved set, upper-case hex."""
    if isinstance(data, str):
        data = data.encode("latin-1")
    out = []
    for b in data:
        if b in _UNRESERVED or (keep_slash and b == 0x2F):
            out.append(chr(b))
        else:
            out.append("%%%02X" % b)
    return "".join(out)


def percent_decode(text):
    """Decodes %XX escapes in a latin-1 str to bytes; '+' stays '+'; bad escapes stay as is."""
    raw = text.encode("latin-1")
    out = bytearray()
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == 0x25 and i + 2 < n and _ishex(raw[i + 1]) and _ishex(raw[i + 2]):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(c)
            i += 1
    return bytes(out)


def _ishex(b):
    return (0x30 <= b <= 0x39) or (0x41 <= b <= 0x46) or (0x61 <= b <= 0x66)


def normalize_path(path):
    """Removes dot segments and empty segments; keeps a leading and a trailing slash."""
    if not path:
        return "/"
    segs = path.split("/")
    out = []
    for s in segs:
        if s in ("", "."):
            continue
        if s == "..":
            if out:
                out.pop()
            continue
        out.append(s)
    res = "/" + "/".join(out)
    if path.endswith("/") and res != "/":
        res += "/"
    return res


def canonical_uri(path, s3, normalize=None):
    if normalize is None:
        normalize = not s3
    if s3:
        return path or "/"
    if normalize:
        path = normalize_path(path)
    return uri_encode(path or "/", keep_slash=True)


def parse_query(query):
    """[(name_bytes, value_bytes)] decoded from a raw query string."""
    out = []
    for part in query.split("&"):
        if part == "":
            continue
        k, _, v = part.partition("=")
        out.append((percent_decode(k), percent_decode(v)))
    return out


def canonical_query(query, drop_signature=False, drop_token=False):
    pairs = []
    for k, v in parse_query(query):
        if drop_signature and k == b"X-Amz-Signature":
            continue
        if drop_token and k == b"X-Amz-Security-Token":
            continue
        pairs.append((uri_encode(k, False), uri_encode(v, False)))
    pairs.sort()
    return "&".join(f"{k}={v}" for k, v in pairs)


def canonical_header_value(values):
    return ",".join(_WS.sub(" ", v.strip(" \t")) for v in values)


class AuthInfo:
    """What a request's signature claims."""

    def __init__(self):
        self.kind = None          # 'header' | 'query' | None (unsigned)
        self.access_key = None
        self.scope_date = None
        self.region = None
        self.service = None
        self.signed_headers = []
        self.signature = None
        self.amz_date = None
        self.expires = None
        self.token = None

    @property
    def scope(self):
        return f"{self.scope_date}/{self.region}/{self.service}/aws4_request"


def _split_credential(cred):
    parts = cred.split("/")
    if len(parts) < 5 or parts[-1] != "aws4_request":
        raise VerifyError("AuthorizationHeaderMalformed", "the credential scope is malformed", 400)
    return "/".join(parts[:-4]), parts[-4], parts[-3], parts[-2]


def parse_auth(head):
    """Reads the Authorization header or the X-Amz-* query parameters. Never raises for
    unsigned requests (kind None); raises VerifyError for malformed signatures."""
    info = AuthInfo()
    auth = head.get("authorization")
    if auth is not None:
        if not auth.startswith(ALGORITHM + " "):
            raise VerifyError("AuthorizationHeaderMalformed",
                              "only AWS4-HMAC-SHA256 is supported", 400)
        fields = {}
        for item in auth[len(ALGORITHM) + 1:].split(","):
            k, sep, v = item.strip().partition("=")
            if sep:
                fields[k.strip()] = v.strip()
        for need in ("Credential", "SignedHeaders", "Signature"):
            if need not in fields:
                raise VerifyError("AuthorizationHeaderMalformed", f"missing {need}", 400)
        info.kind = "header"
        info.access_key, info.scope_date, info.region, info.service = _split_credential(
            fields["Credential"])
        info.signed_headers = fields["SignedHeaders"].split(";")
        info.signature = fields["Signature"]
        info.amz_date = head.get("x-amz-date") or head.get("date")
        info.token = head.get("x-amz-security-token")
        return info
    params = {}
    for k, v in parse_query(head.query):
        params.setdefault(k.decode("latin-1"), v.decode("utf-8", "surrogateescape"))
    if "AWSAccessKeyId" in params and "Signature" in params:
        raise VerifyError("InvalidRequest", "only AWS4-HMAC-SHA256 signatures are accepted", 400)
    if "X-Amz-Signature" in params or "X-Amz-Credential" in params or "X-Amz-Algorithm" in params:
        if params.get("X-Amz-Algorithm") != ALGORITHM:
            raise VerifyError("AuthorizationQueryParametersError",
                              "X-Amz-Algorithm must be AWS4-HMAC-SHA256", 400)
        for need in ("X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Signature"):
            if need not in params:
                raise VerifyError("AuthorizationQueryParametersError", f"missing {need}", 400)
        info.kind = "query"
        info.access_key, info.scope_date, info.region, info.service = _split_credential(
            params["X-Amz-Credential"])
        info.signed_headers = params["X-Amz-SignedHeaders"].split(";")
        info.signature = params["X-Amz-Signature"]
        info.amz_date = params["X-Amz-Date"]
        info.token = params.get("X-Amz-Security-Token")
        if "X-Amz-Expires" in params:
            try:
                info.expires = int(params["X-Amz-Expires"])
            except ValueError:
                raise VerifyError("AuthorizationQueryParametersError",
                                  "X-Amz-Expires must be a number", 400) from None
    return info


def payload_hash_for(head, info, body=None):
    """The payload hash the canonical request ends with. Returns None when the hash of a
    body not yet read is needed (the caller reads the body and calls again)."""
    declared = head.get("x-amz-content-sha256")
    if declared is not None:
        return declared
    if info.kind == "query" and info.service == "s3":
        return UNSIGNED
    if body is None:
        return None
    return hashlib.sha256(body).hexdigest()


def needs_body(head, info):
    return payload_hash_for(head, info) is None


def canonical_request(head, info, payload_hash, normalize=None, drop_token=False):
    s3 = info.service == "s3"
    lines = [head.method, canonical_uri(head.path, s3, normalize),
             canonical_query(head.query, drop_signature=info.kind == "query",
                             drop_token=drop_token)]
    names = [n.lower() for n in info.signed_headers]
    for n in names:
        vals = head.get_all(n)
        if not vals:
            raise VerifyError("SignatureDoesNotMatch", f"signed header {n} is not in the request")
        lines.append(f"{n}:{canonical_header_value(vals)}")
    lines.append("")
    lines.append(";".join(names))
    lines.append(payload_hash)
    return "\n".join(lines)


def string_to_sign(info, creq):
    digest = hashlib.sha256(creq.encode("latin-1")).hexdigest()
    return f"{ALGORITHM}\n{info.amz_date}\n{info.scope}\n{digest}"


def signing_key(secret, date, region, service):
    k = hmac.new(("AWS4" + secret).encode("utf-8"), date.encode(), hashlib.sha256).digest()
    for part in (region, service, "aws4_request"):
        k = hmac.new(k, part.encode("utf-8"), hashlib.sha256).digest()
    return k


def compute_signature(info, secret, creq):
    sts = string_to_sign(info, creq)
    key = signing_key(secret, info.scope_date, info.region, info.service)
    return hmac.new(key, sts.encode("latin-1"), hashlib.sha256).hexdigest()


def parse_amz_date(text):
    try:
        return datetime.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        pass
    try:
        import email.utils
        return email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None


def check_time(info, now, max_skew_s):
    """Presigned expiry and header-signature clock skew against `now` (an aware datetime)."""
    when = parse_amz_date(info.amz_date)
    if when is None:
        raise VerifyError("AccessDenied" if info.kind == "query" else "AuthorizationHeaderMalformed",
                          "the request date is malformed", 403 if info.kind == "query" else 400)
    if info.amz_date[:8] != info.scope_date and info.amz_date[:8].isdigit():
        raise VerifyError("SignatureDoesNotMatch", "the credential scope date is not the request date")
    if info.kind == "query":
        if info.expires is None:
            return
        if info.expires > 604800 or info.expires < 1:
            raise VerifyError("AuthorizationQueryParametersError",
                              "X-Amz-Expires must be between 1 and 604800 seconds", 400)
        if now > when + datetime.timedelta(seconds=info.expires):
            raise VerifyError("AccessDenied", "Request has expired")
        if when - now > datetime.timedelta(seconds=max_skew_s):
            raise VerifyError("AccessDenied", "Request is not valid yet")
        return
    if max_skew_s is not None and abs((now - when).total_seconds()) > max_skew_s:
        raise VerifyError("RequestTimeTooSkewed",
                          "The difference between the request time and the current time is too large.")


def verify(head, info, secret, payload_hash, normalize=None):
    """Raises VerifyError('SignatureDoesNotMatch') unless the signature is right."""
    creq = canonical_request(head, info, payload_hash, normalize)
    want = compute_signature(info, secret, creq)
    got = (info.signature or "").lower()
    if not hmac.compare_digest(want, got) and info.kind == "query" and info.service != "s3" \
            and info.token is not None:
        # Some non-S3 services add the session token to a presigned query after signing.
        creq = canonical_request(head, info, payload_hash, normalize, drop_token=True)
        want = compute_signature(info, secret, creq)
    if not hmac.compare_digest(want, got):
        raise VerifyError("SignatureDoesNotMatch",
                          "The request signature we calculated does not match the signature you "
                          "provided. Check your key and signing method.")


def is_hash(value):
    return value is not None and bool(_HEX64.match(value))
