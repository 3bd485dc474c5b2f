"""The fault-injecting reverse proxy with its SigV4 verifier and its control API.

See README.md beside this file for the control API; this module is the code.
"""
import asyncio
import datetime
import email.utils
import hashlib
import json
import logging
import re
import ssl
import threading
import urllib.parse
import uuid
from xml.sax.saxutils import escape

from . import http1, sigv4
from .addresses import AddressError, Addresses
from .body_check import BodyCheck
from .http1 import HttpError
from .rules import RevokeArm, Rule, RuleError
from .sigv4 import VerifyError

BUFFER_LIMIT = 64 * 1024 * 1024     # bodies read whole (verification of unsigned-hash requests)
TAP_LIMIT = 1024 * 1024             # STS reply bytes kept for learning credentials
EXPECT_WAIT_S = 1.0                 # how long to wait for an upstream 100 Continue
STS_ACTIONS = {"AssumeRole", "AssumeRoleWithWebIdentity", "AssumeRoleWithSAML", "GetSessionToken",
               "GetCallerIdentity", "GetFederationToken", "DecodeAuthorizationMessage",
               "GetAccessKeyInfo", "AssumeRoot"}
_REDACT = re.compile(r"(?i)\b(X-Amz-Signature|X-Amz-Security-Token|Signature|SecretAccessKey|"
                     r"SessionToken|WebIdentityToken)=[^&]*")


def redact_target(target):
    return _REDACT.sub(lambda m: m.group(1) + "=REDACTED", target)


def make_logger(path, name):
    log = logging.getLogger(f"floe.proxy.{name}.{id(object())}")
    log.propagate = False
    log.setLevel(logging.INFO)
    if path:
        h = logging.FileHandler(path)
        h.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        log.addHandler(h)
    else:
        log.addHandler(logging.NullHandler())
    return log


def classify_action(action):
    if action in STS_ACTIONS:
        return "sts"
    if "Queue" in action or "Message" in action:
        return "sqs"
    return "iam"


def classify_unsigned(head, body):
    """Service of a request without a signature: Action= (query or form), X-Amz-Target, Host."""
    for src in (head.query, (body or b"").decode("latin-1")):
        for k, v in sigv4.parse_query(src):
            if k == b"Action":
                return classify_action(v.decode("latin-1"))
    target = head.get("x-amz-target", "")
    if target.startswith("AmazonSQS"):
        return "sqs"
    host = head.get("host", "").lower()
    for s in ("sts", "sqs", "iam"):
        if host.startswith(s + ".") or f".{s}." in host:
            return s
    return "s3"


class Stats:
    def __init__(self):
        self.reset()

    def reset(self):
        self.connections = 0
        self.upstream_connections = 0
        self.requests = 0
        self.by_service = {}
        self.signature_failures = 0
        self.revoked_rejections = 0
        self.rule_actions = 0
        self.serialized_waits = 0
        self.forwarded = 0
        self.body_rejections = 0

    def describe(self):
        return {"connections": self.connections, "requests": self.requests,
                "by_service": dict(self.by_service), "signature_failures": self.signature_failures,
                "revoked_rejections": self.revoked_rejections,
                "upstream_connections": self.upstream_connections,
                "rule_actions": self.rule_actions, "serialized_waits": self.serialized_waits,
                "forwarded": self.forwarded, "body_rejections": self.body_rejections}


class Verifier:
    def __init__(self):
        self.enabled = False
        self.secrets = {}       # access key -> secret (told)
        self.learned = {}       # access key -> secret (from STS replies)
        self.revoked = {}       # access key -> mode ("access_denied" | "bare")
        self.clock_offset_s = 0
        self.max_skew_s = 900

    def now(self):
        return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(
            seconds=self.clock_offset_s)

    def secret_for(self, akid):
        if akid in self.secrets:
            return self.secrets[akid]
        return self.learned.get(akid)

    def describe(self):
        return {"enabled": self.enabled, "access_keys": sorted(self.secrets),
                "learned": sorted(self.learned), "revoked": sorted(self.revoked),
                "clock_offset_s": self.clock_offset_s, "max_skew_s": self.max_skew_s}


def error_reply(code, message, status, head, service, now, extra=None, akid=None):
    """An AWS-shaped error reply: S3 XML, query-protocol XML or JSON by the request's protocol.
    A HEAD request gets the status and headers with no body."""
    rid = uuid.uuid4().hex[:16].upper()
    date = email.utils.format_datetime(now, usegmt=True)
    headers = [("x-amz-request-id", rid), ("Date", date)]
    if head is not None and head.method == "HEAD":
        headers.append(("Content-Type", "application/xml"))
        return http1.build_reply(status, headers, b"", head_only=True)
    if head is not None and head.has("x-amz-target"):
        if service != "s3" and code == "InvalidAccessKeyId":
            code = "InvalidClientTokenId"
        body = json.dumps({"__type": code, "message": message}).encode()
        headers += [("Content-Type", "application/x-amz-json-1.0"),
                    ("x-amzn-query-error", f"{code};Sender"), ("x-amzn-RequestId", rid)]
        return http1.build_reply(status, headers, body)
    if service not in (None, "s3"):
        if code == "InvalidAccessKeyId":
            code = "InvalidClientTokenId"
        body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse><Error><Type>Sender</Type>'
                f"<Code>{escape(code)}</Code><Message>{escape(message)}</Message></Error>"
                f"<RequestId>{rid}</RequestId></ErrorResponse>").encode()
        headers += [("Content-Type", "text/xml"), ("x-amzn-RequestId", rid)]
        return http1.build_reply(status, headers, body)
    more = ""
    if akid is not None:
        more += f"<AWSAccessKeyId>{escape(akid)}</AWSAccessKeyId>"
    for k, v in (extra or {}).items():
        more += f"<{k}>{escape(str(v))}</{k}>"
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{escape(code)}</Code>'
            f"<Message>{escape(message)}</Message>{more}<RequestId>{rid}</RequestId>"
            f"<HostId>floe-test-proxy</HostId></Error>").encode()
    headers.append(("Content-Type", "application/xml"))
    return http1.build_reply(status, headers, body)


REVOKE_MODES = ("access_denied", "bare")


def revoked_reply(mode, head, service, now):
    """What a revoked key gets: AccessDenied in the request's protocol (a HEAD: no body), or
    with mode "bare" a 403 with no body for every method (as some stores and front ends
    answer a refused key)."""
    if mode == "bare":
        date = email.utils.format_datetime(now, usegmt=True)
        return http1.build_reply(403, [("x-amz-request-id", uuid.uuid4().hex[:16].upper()), ("Date", date)], b"",
                                 head_only=head is not None and head.method == "HEAD")
    return error_reply("AccessDenied", "Access Denied", 403, head, service, now)


def reply_wants_close(raw, method):
    """Whether the client must close after this reply (Connection: close, or no framing)."""
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        return True
    try:
        rh = http1.parse_head(raw[:end + 4], False)
        if "close" in rh.tokens("connection"):
            return True
        kind, n = http1.response_framing(rh, method)
    except HttpError:
        return True
    if kind == "eof":
        return True
    if kind == "length" and len(raw) - (end + 4) != n:
        return True       # the body does not match its length: the stream is out of step
    return False


class _Reject(Exception):
    def __init__(self, err, counted=True):
        super().__init__(err.code)
        self.err = err
        self.counted = counted


class Session:
    """One client connection and its own upstream connection."""

    def __init__(self, proxy, reader, writer, cid):
        self.p = proxy
        self.cr = reader
        self.cw = writer
        self.cid = cid
        self.ur = None
        self.uw = None

    # upstream connection
    async def upstream(self, fresh=False):
        if fresh or (self.ur is not None and self.ur.at_eof()):
            self.close_upstream()
        if self.uw is None:
            self.ur, self.uw = await asyncio.open_connection(
                self.p.up_host, self.p.up_port, ssl=self.p.up_ssl, limit=http1.MAX_HEAD)
            self.p.stats.upstream_connections += 1
        return self.ur, self.uw

    def close_upstream(self):
        if self.uw is not None:
            try:
                self.uw.transport.abort()
            except Exception:  # noqa: BLE001 - closing a dead socket
                pass
        self.ur = self.uw = None

    def close(self):
        self.close_upstream()
        try:
            self.cw.close()
        except Exception:  # noqa: BLE001
            pass

    async def send(self, data):
        self.cw.write(data)
        await self.cw.drain()

    async def run(self):
        while True:
            head = await http1.read_head(self.cr)
            if head is None:
                return
            lock = self.p.key_lock(head)
            if lock is None:
                keep = await self.handle(head)
            else:
                if lock.locked():
                    self.p.stats.serialized_waits += 1
                async with lock:   # one exchange at a time on this object
                    keep = await self.handle(head)
            if not keep:
                return

    # one exchange
    async def handle(self, head):
        p = self.p
        p.stats.requests += 1
        framing = http1.request_framing(head)
        has_body = framing != ("length", 0)
        expect = "100-continue" in head.tokens("expect")
        conn = head.tokens("connection")
        client_close = "close" in conn or (head.start[2] == "HTTP/1.0" and "keep-alive" not in conn)
        self.got100 = False
        raw_body = body = None

        try:
            info = sigv4.parse_auth(head)
            auth_err = None
        except VerifyError as e:
            info, auth_err = None, e
        signed = info is not None and info.kind is not None
        service = info.service if signed else None
        akid = info.access_key if signed else None
        want_body = False
        if service is None and auth_err is None and head.method == "POST" and framing[0] == "length" \
                and framing[1] <= TAP_LIMIT and "x-www-form-urlencoded" in head.get("content-type", ""):
            want_body = True
        if p.verifier.enabled and signed and sigv4.needs_body(head, info) and has_body:
            want_body = True
        if want_body and has_body:
            if expect:
                await self.send(b"HTTP/1.1 100 Continue\r\n\r\n")
                self.got100 = True
            raw_body, body = await http1.read_body(self.cr, framing, BUFFER_LIMIT)
        elif not has_body:
            raw_body = body = b""
        if service is None:
            service = classify_unsigned(head, body)
        p.stats.by_service[service] = p.stats.by_service.get(service, 0) + 1
        p.log.info("conn %d %s %s service=%s key=%s", self.cid, head.method,
                   redact_target(head.target), service, akid or "-")

        expected_hash = None
        try:
            if akid is not None and akid in p.verifier.revoked:
                p.stats.revoked_rejections += 1
                p.log.info("conn %d rejected: AccessDenied (revoked)", self.cid)
                reply = revoked_reply(p.verifier.revoked[akid], head, service, p.verifier.now())
                return await self.answer_early(head, framing, raw_body, expect, reply, client_close)
            if p.verifier.enabled and (signed or auth_err is not None):
                if auth_err is not None:
                    raise _Reject(auth_err)
                secret = p.verifier.secret_for(akid)
                if secret is None:
                    raise _Reject(VerifyError(
                        "InvalidAccessKeyId",
                        "The AWS Access Key Id you provided does not exist in our records."))
                try:
                    sigv4.check_time(info, p.verifier.now(), p.verifier.max_skew_s)
                    ph = sigv4.payload_hash_for(head, info, body)
                    sigv4.verify(head, info, secret, ph)
                except VerifyError as e:
                    raise _Reject(e) from None
                if sigv4.is_hash(ph):
                    if body is not None:
                        if hashlib.sha256(body).hexdigest() != ph:
                            raise _Reject(self.sha_mismatch())
                    else:
                        expected_hash = ph
        except _Reject as r:
            if r.counted:
                p.stats.signature_failures += 1
            e = r.err
            p.log.info("conn %d rejected: %s (%s)", self.cid, e.code, e.message)
            extra = None
            if e.code == "RequestTimeTooSkewed":
                extra = {"RequestTime": info.amz_date, "ServerTime":
                         p.verifier.now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "MaxAllowedSkewMilliseconds": int(p.verifier.max_skew_s * 1000)}
            reply = error_reply(e.code, e.message, e.status, head, service, p.verifier.now(), extra,
                                akid if e.code == "InvalidAccessKeyId" else None)
            return await self.answer_early(head, framing, raw_body, expect, reply, client_close)

        rule = None
        for r in list(p.rules.values()):
            if r.consider(head, service, akid, body):
                rule = r
                break
        act = rule.action if rule else None
        if rule:
            p.stats.rule_actions += 1
            p.log.info("conn %d rule %d (%s) fires: %s (match %d, fire %d)", self.cid, rule.id,
                       rule.name, act.type, rule.matched, rule.fired)
        t = act.type if act else None
        # A byte of the request body flipped in transit: the checks below see it, as
        # the store would.
        flip_request = act.offset if t == "flip" and act.where == "request_body" else None
        if flip_request is not None:
            t = None
        check = None
        if p.body_checks and service == "s3" and has_body:
            query = head.target.split("?", 1)[1] if "?" in head.target else ""
            check = BodyCheck(head.method, query, head.headers)
            if not check.active() and check.early() is None:
                check = None
        if check is not None and raw_body is not None:
            if flip_request is not None and framing[0] == "length" and flip_request < len(raw_body):
                changed = bytearray(raw_body)
                changed[flip_request] ^= 0xFF
                raw_body = body = bytes(changed)
                p.log.info("conn %d flipped request body byte %d", self.cid, flip_request)
            check.feed(body)
            bad = check.verdict()
            if bad is not None:
                return await self.refuse_body(head, framing, raw_body, expect, client_close, bad)
            check = None
        elif check is not None and check.early() is not None:
            return await self.refuse_body(head, framing, raw_body, expect, client_close, check.early())

        if t == "reply" and act.when == "before":
            if act.ms:
                await asyncio.sleep(act.ms / 1000)
            raw = act.raw if act.raw is not None else http1.build_reply(
                act.status, act.headers, act.body, head_only=head.method == "HEAD")
            if act.raw is not None and act.fix_length:
                raw = http1.fix_content_length(raw)
            return await self.answer_early(head, framing, raw_body, expect, raw, client_close)
        if t == "cut" and act.when == "before":
            return False
        if t == "stall":
            await self.stall()      # reads (and drops) the body and anything after it
            return False
        if t == "delay":
            await asyncio.sleep(act.ms / 1000)
        if t == "delay_body":
            await asyncio.sleep(act.head_ms / 1000)

        # The forwarding decision, in one step with no await: a revocation armed to
        # fire on this request applies to every request decided after it.
        p.fire_arms_on_arrival(head, service, akid, body)
        if akid is not None and akid in p.verifier.revoked:
            p.stats.revoked_rejections += 1
            p.log.info("conn %d rejected: AccessDenied (revoked while it was held)", self.cid)
            reply = revoked_reply(p.verifier.revoked[akid], head, service, p.verifier.now())
            return await self.answer_early(head, framing, raw_body, expect, reply, client_close)
        p.stats.forwarded += 1
        p.count_forwarded(head, service, akid, body)

        rh = await self.forward(head, framing, raw_body, expect, expected_hash, check, flip_request)
        if rh is None:          # the payload hash or a body check did not match: already answered
            return not client_close
        must_close = client_close or self.early_final
        self.client_close = client_close

        tap = service == "sts"
        if t is None or t in ("delay", "close_after", "flip"):
            flip = act.offset if t == "flip" else None
            keep = await self.relay(rh, head.method, tap, flip)
            return keep and not must_close and t != "close_after"
        fr = http1.response_framing(rh, head.method)
        if t == "stall_body":
            await self.send(rh.raw)
            sent = 0
            async for r, _d in http1.iter_body(self.ur, fr):
                piece = r[:max(0, act.after_bytes - sent)]
                if piece:
                    await self.send(piece)
                    sent += len(piece)
                if sent >= act.after_bytes:
                    break
            self.close_upstream()
            await self.stall()
            return False
        if t == "delay_body":
            await self.send(rh.raw)
        raw_reply, data = await http1.read_body(self.ur, fr, None)
        if fr[0] == "eof" or "close" in rh.tokens("connection"):
            self.close_upstream()
        if tap:
            self.learn(rh, data)
        if t == "delay_body":
            await asyncio.sleep(act.ms / 1000)
            await self.send(raw_reply)
            return not must_close and fr[0] != "eof" and "close" not in rh.tokens("connection")
        if t == "reply":        # when == after
            raw = act.raw if act.raw is not None else http1.build_reply(
                act.status, act.headers, act.body, head_only=head.method == "HEAD")
            if act.raw is not None and act.fix_length:
                raw = http1.fix_content_length(raw)
            await self.send(raw)
            return not must_close and not reply_wants_close(raw, head.method)
        if t == "cut":
            if act.when == "mid_body":
                n = act.after_bytes if act.after_bytes is not None else len(raw_reply) // 2
                await self.send(rh.raw + raw_reply[:n])
            return False
        if t == "hold":
            fut = asyncio.get_running_loop().create_future()
            rule.held.append(fut)
            try:
                await fut
            finally:
                if fut in rule.held:
                    rule.held.remove(fut)
            self.close_upstream_after = False
            await self.send(self.client_head(rh, fr) + raw_reply)
            if self.close_upstream_after:
                return not must_close
            return not must_close and fr[0] != "eof" and "close" not in rh.tokens("connection")
        raise AssertionError(t)

    async def refuse_body(self, head, framing, raw_body, expect, client_close, err):
        """Answers a request whose body (or a header about it) S3 would refuse."""
        self.p.stats.body_rejections += 1
        self.p.log.info("conn %d rejected: %s (%s)", self.cid, err.code, err.message)
        reply = error_reply(err.code, err.message, err.status, head, "s3", self.p.verifier.now())
        return await self.answer_early(head, framing, raw_body, expect, reply, client_close)

    def sha_mismatch(self):
        return VerifyError("XAmzContentSHA256Mismatch",
                           "The provided 'x-amz-content-sha256' header does not match what was "
                           "computed.", 400)

    async def drain(self, framing):
        async for _r, _d in http1.iter_body(self.cr, framing):
            pass

    async def stall(self):
        """Never answer; keep the socket until the client goes away."""
        while await self.cr.read(http1.PIECE):
            pass

    async def answer_early(self, head, framing, raw_body, expect, reply, client_close):
        """Answers without forwarding. A body not yet read is drained, unless the client is
        waiting for 100 Continue: then it is never read and the connection closes, and the
        reply says so (a client that reused it would be reset on its next request)."""
        if raw_body is None:
            if expect and not self.got100:
                await self.send(http1.add_connection_close(reply))
                return False
            await self.drain(framing)
        await self.send(reply)
        return not client_close and not reply_wants_close(reply, head.method)

    async def read_reply_head(self, ur):
        while True:
            rh = await http1.read_head(ur, is_request=False)
            if rh is None:
                raise ConnectionResetError("upstream closed the connection")
            if 100 <= rh.status < 200 and rh.status != 101:
                continue
            return rh

    async def forward(self, head, framing, raw_body, expect, expected_hash, check=None, flip=None):
        """Sends the request upstream; returns the final reply head, or None when the
        request was answered here (payload hash mismatch, a body check failed)."""
        self.early_final = False
        replayable = raw_body is not None
        for attempt in (0, 1):
            ur, uw = await self.upstream(fresh=attempt == 1)
            try:
                uw.write(head.raw)
                await uw.drain()
                if raw_body == b"" or (raw_body is not None and not expect):
                    if raw_body:
                        uw.write(raw_body)
                        await uw.drain()
                    return await self.read_reply_head(ur)
                break
            except (ConnectionError, HttpError):
                if not replayable or attempt == 1:
                    raise
                self.p.log.info("conn %d upstream connection was stale; reconnecting", self.cid)
        # a body to send, possibly with Expect: 100-continue
        if expect:
            try:
                first = await asyncio.wait_for(http1.read_head(ur, is_request=False), EXPECT_WAIT_S)
            except asyncio.TimeoutError:
                first = None
            if first is not None and first.status != 100:
                # a final reply before the body: it is relayed, then both sides are closed
                self.early_final = True
                return first
            if not self.got100:
                await self.send(first.raw if first is not None else b"HTTP/1.1 100 Continue\r\n\r\n")
                self.got100 = True
        if raw_body is not None:
            uw.write(raw_body)
            await uw.drain()
        else:
            e = await self.stream_body(framing, expected_hash, check, flip)
            if e is not None:
                self.close_upstream()
                if e.code == "XAmzContentSHA256Mismatch":
                    self.p.stats.signature_failures += 1
                else:
                    self.p.stats.body_rejections += 1
                self.p.log.info("conn %d rejected: %s", self.cid, e.code)
                await self.send(error_reply(e.code, e.message, e.status, head, "s3",
                                            self.p.verifier.now()))
                return None
        return await self.read_reply_head(ur)

    async def stream_body(self, framing, expected_hash, check=None, flip=None):
        """Streams the client's body upstream, the byte at offset `flip` of its payload
        inverted. With a hash or a body check, the last piece is held back until the
        verdict is known, so a bad body never completes upstream. None, or the error."""
        hasher = hashlib.sha256() if expected_hash else None
        pending = None
        at = 0
        async for r, d in http1.iter_body(self.cr, framing):
            if flip is not None and d and at <= flip < at + len(d):
                changed = bytearray(d)      # a payload piece is its raw piece (iter_body)
                changed[flip - at] ^= 0xFF
                r = d = bytes(changed)
                self.p.log.info("conn %d flipped request body byte %d", self.cid, flip)
            at += len(d)
            if hasher is not None:
                hasher.update(d)
            if check is not None:
                check.feed(d)
            if pending is not None:
                self.uw.write(pending)
                await self.uw.drain()
            pending = r
        if hasher is not None and hasher.hexdigest() != expected_hash:
            return self.sha_mismatch()
        if check is not None:
            bad = check.verdict()
            if bad is not None:
                return bad
        if pending:
            self.uw.write(pending)
            await self.uw.drain()
        return None

    def client_head(self, rh, fr):
        """The reply head for the client. An upstream that ends keep-alive on a reply with a
        known length (moto closes after every reply) is hidden from the client: the proxy
        drops "Connection: close" and opens a new upstream connection for the next request."""
        if fr[0] != "eof" and "close" in rh.tokens("connection") and not self.client_close \
                and not self.early_final:
            self.close_upstream_after = True
            return http1.drop_connection_close(rh.raw)
        return rh.raw

    async def relay(self, rh, method, tap, flip=None):
        """Relays the reply as received; with `flip` (a "flip" rule), the body byte at that
        offset of the payload (chunk framing not counted) goes out with its bits inverted."""
        fr = http1.response_framing(rh, method)
        self.close_upstream_after = False
        self.cw.write(self.client_head(rh, fr))
        kept = bytearray() if tap else None
        at = 0                  # payload bytes relayed so far
        async for r, d in http1.iter_body(self.ur, fr):
            if flip is not None and d and at <= flip < at + len(d):
                changed = bytearray(d)     # a payload piece is its raw piece (iter_body)
                changed[flip - at] ^= 0xFF
                r = bytes(changed)
                self.p.log.info("conn %d flipped reply body byte %d", self.cid, flip)
            at += len(d)
            self.cw.write(r)
            await self.cw.drain()
            if kept is not None and len(kept) < TAP_LIMIT:
                kept += d
        await self.cw.drain()
        if tap:
            self.learn(rh, bytes(kept))
        if self.close_upstream_after:
            self.close_upstream()
            return True
        if fr[0] == "eof" or "close" in rh.tokens("connection") or self.early_final:
            self.close_upstream()
            return False
        return True

    def learn(self, rh, data):
        if rh.status != 200 or not data:
            return
        text = data.decode("utf-8", "replace")
        for m in re.finditer(r"<Credentials>(.*?)</Credentials>", text, re.S):
            block = m.group(1)
            ak = re.search(r"<AccessKeyId>\s*(.*?)\s*</AccessKeyId>", block, re.S)
            sk = re.search(r"<SecretAccessKey>\s*(.*?)\s*</SecretAccessKey>", block, re.S)
            if ak and sk:
                self.p.verifier.learned[ak.group(1)] = sk.group(1)
                self.p.issued.append(ak.group(1))
                self.p.log.info("conn %d learned access key %s from an STS reply",
                                self.cid, ak.group(1))


class Proxy:
    """The reverse proxy. Use `await start()` in a running loop, or ProxyThread."""

    def __init__(self, upstream, host="127.0.0.1", port=0, control_port=0, tls_port=None,
                 tls_cert=None, tls_key=None, log_path=None, addresses=()):
        u = urllib.parse.urlsplit(upstream)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("upstream must be http://host:port or https://host:port")
        self.upstream_url = upstream
        self.up_host = u.hostname
        self.up_port = u.port or (443 if u.scheme == "https" else 80)
        self.up_ssl = None
        if u.scheme == "https":
            self.up_ssl = ssl.create_default_context()
            self.up_ssl.check_hostname = False
            self.up_ssl.verify_mode = ssl.CERT_NONE
        self.host = host
        self.want_port = port
        self.want_control = control_port
        self.want_tls = tls_port
        self.tls_cert = tls_cert
        self.tls_key = tls_key
        self.log = make_logger(log_path, "reverse")
        self.rules = {}
        self.next_id = 1
        self.stats = Stats()
        self.verifier = Verifier()
        self.issued = []
        self.revoke_arms = []   # RevokeArm: revocations waiting for their n-th forwarded request
        # POST /body_checks: S3 request bodies checked as S3 does (body_check.py).
        # On by default; kept across /reset, turned on again by /reset {"all": true}.
        self.body_checks = True
        self.servers = []
        self.sessions = set()
        self.cids = 0
        self.port = self.control_port = self.tls_port = None
        # POST /serialize: exchanges on one object path, one at a time (see
        # key_lock). Kept across /reset (like the verifier), cleared by
        # /reset {"all": true}.
        self.serialize = False
        self.key_locks = {}
        # --addresses: more loopback addresses at the same ports (addresses.py).
        self.addresses = Addresses(host, addresses)

    async def start(self):
        srv = await asyncio.start_server(lambda r, w: self._client(r, w), self.host, self.want_port,
                                         limit=http1.MAX_HEAD)
        self.servers.append(srv)
        self.port = srv.sockets[0].getsockname()[1]
        await self.addresses.listen(lambda r, w: self._client(r, w), self.port, None, http1.MAX_HEAD)
        if self.want_control is not None:
            c = await asyncio.start_server(self._control_client, self.host, self.want_control,
                                           limit=http1.MAX_HEAD)
            self.servers.append(c)
            self.control_port = c.sockets[0].getsockname()[1]
        if self.tls_cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.tls_cert, self.tls_key)
            t = await asyncio.start_server(lambda r, w: self._client(r, w), self.host,
                                           self.want_tls or 0, ssl=ctx, limit=http1.MAX_HEAD)
            self.servers.append(t)
            self.tls_port = t.sockets[0].getsockname()[1]
            await self.addresses.listen(lambda r, w: self._client(r, w), self.tls_port, ctx,
                                        http1.MAX_HEAD)
        self.log.info("proxy listening on %s:%s (tls %s, control %s) for upstream %s", self.host,
                      self.port, self.tls_port, self.control_port, self.upstream_url)

    async def close(self):
        self.addresses.close()
        for s in self.servers:
            s.close()
        tasks = list(self.sessions)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for s in self.servers:
            try:
                await asyncio.wait_for(s.wait_closed(), 2)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                pass

    async def _client(self, reader, writer):
        if self.addresses.accepted(writer) == "blackhole":
            await self._blackhole(reader, writer)
            return
        self.stats.connections += 1
        self.cids += 1
        s = Session(self, reader, writer, self.cids)
        task = asyncio.current_task()
        self.sessions.add(task)
        try:
            await s.run()
        except (HttpError, ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, OSError) as e:
            self.log.info("conn %d ended: %s", s.cid, type(e).__name__)
        except asyncio.CancelledError:
            pass
        finally:
            s.close()
            self.sessions.discard(task)

    async def _blackhole(self, reader, writer):
        task = asyncio.current_task()
        self.sessions.add(task)
        try:
            await Addresses.blackhole(reader)
        except (ConnectionError, ssl.SSLError, OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            self.sessions.discard(task)

    # control API -------------------------------------------------------
    def control(self, method, path, body=None):
        """Runs one control call (on the loop thread). Returns (status, json-able object)."""
        try:
            return self._control(method.upper(), path.rstrip("/") or "/", body)
        except RuleError as e:
            return 400, {"error": str(e)}

    def key_lock(self, head):
        """With serialization on, the lock of the object a request names
        (/bucket/key, path style; the query is ignored), else None. moto
        checks a PUT's If-Match / If-None-Match and stores the object in
        separate steps under a threaded server, so two conditional writes on
        one base can both win (tests/support/moto_if_match_race.py shows it);
        AWS and RGW decide them atomically. Holding each object's exchanges
        to one at a time, from the request to the end of the reply, gives
        moto the per-object atomicity the tests of floe's compare-and-swap
        need."""
        if not self.serialize:
            return None
        path = head.target.split("?", 1)[0]
        if path.count("/") < 2 or path.endswith("/"):
            return None     # a bucket, not an object
        lock = self.key_locks.get(path)
        if lock is None:
            lock = self.key_locks[path] = asyncio.Lock()
        return lock

    def _rule_or_404(self, rid):
        r = self.rules.get(rid)
        if r is None:
            raise KeyError(rid)
        return r

    def _release(self, rule):
        n = 0
        for f in list(rule.held):
            if not f.done():
                f.set_result(True)
                n += 1
        rule.held.clear()
        rule.released += n
        return n

    def _control(self, method, path, body):
        parts = [x for x in path.split("/") if x]
        if parts == ["rules"]:
            if method == "POST":
                if not isinstance(body, dict):
                    raise RuleError("the body must be a JSON rule object")
                rule = Rule(self.next_id, body)
                self.next_id += 1
                self.rules[rule.id] = rule
                self.log.info("rule %d (%s) added: trigger %s, action %s, seed %s", rule.id,
                              rule.name, rule.spec.get("trigger", {"every": True}),
                              rule.action.type, rule.trigger.seed)
                return 200, {"id": rule.id, "seed": rule.trigger.seed}
            if method == "GET":
                return 200, [r.describe() for r in self.rules.values()]
            if method == "DELETE":
                n = len(self.rules)
                for r in self.rules.values():
                    self._release(r)
                self.rules.clear()
                return 200, {"deleted": n}
        if len(parts) >= 2 and parts[0] == "rules":
            try:
                rid = int(parts[1])
                rule = self._rule_or_404(rid)
            except (ValueError, KeyError):
                return 404, {"error": f"no rule {parts[1]}"}
            if len(parts) == 2 and method == "GET":
                return 200, rule.describe()
            if len(parts) == 2 and method == "DELETE":
                self._release(rule)
                del self.rules[rid]
                return 200, {"deleted": 1}
            if len(parts) == 3 and parts[2] == "release" and method == "POST":
                return 200, {"released": self._release(rule)}
        if parts == ["stats"] and method == "GET":
            return 200, dict(self.stats.describe(), by_address=self.addresses.describe()["connections"])
        if parts == ["addresses"] and method in ("GET", "POST"):
            if method == "POST":
                try:
                    self.addresses.set_modes(body)
                except AddressError as e:
                    return 400, {"error": str(e)}
                self.log.info("address modes: %s", self.addresses.describe()["modes"])
            return 200, self.addresses.describe()
        if parts == ["reset"] and method == "POST":
            for r in self.rules.values():
                self._release(r)
            self.rules.clear()
            self.stats.reset()
            self.addresses.reset()
            self.verifier.revoked.clear()
            self.revoke_arms.clear()
            if isinstance(body, dict) and body.get("all"):
                self.verifier = Verifier()
                self.issued.clear()
                self.serialize = False
                self.body_checks = True
            self.log.info("reset%s", " (all)" if isinstance(body, dict) and body.get("all") else "")
            return 200, {"ok": True}
        if parts == ["verify"]:
            if method == "GET":
                return 200, self.verifier.describe()
            if method == "POST":
                return self._verify(body)
        if parts == ["revoke"] and method == "POST":
            return self._revoke(body)
        if parts == ["revoke"] and method == "GET":
            return 200, {"revoked": sorted(self.verifier.revoked),
                         "armed": [a.describe() for a in self.revoke_arms]}
        if parts == ["body_checks"]:
            if method == "POST":
                if not isinstance(body, dict) or not isinstance(body.get("enabled"), bool):
                    return 400, {"error": 'the body must be {"enabled": true|false}'}
                self.body_checks = body["enabled"]
            return 200, {"enabled": self.body_checks}
        if parts == ["serialize"]:
            if method == "POST":
                if not isinstance(body, dict) or not isinstance(body.get("enabled"), bool):
                    return 400, {"error": 'the body must be {"enabled": true|false}'}
                self.serialize = body["enabled"]
                self.log.info("per-object serialization %s", "on" if self.serialize else "off")
            if method in ("GET", "POST"):
                return 200, {"enabled": self.serialize}
        if parts == ["health"] and method == "GET":
            return 200, {"ok": True, "upstream": self.upstream_url}
        return 404, {"error": f"no route {method} {path}"}

    def _verify(self, body):
        body = body or {}
        allowed = {"enabled", "secrets", "forget", "clock_offset_s", "max_skew_s"}
        if not isinstance(body, dict) or set(body) - allowed:
            raise RuleError(f"verify takes only {', '.join(sorted(allowed))}")
        v = self.verifier
        if body.get("forget"):
            v.secrets.clear()
            v.learned.clear()
        secrets_ = body.get("secrets", {})
        if not isinstance(secrets_, dict) or not all(
                isinstance(k, str) and isinstance(s, str) for k, s in secrets_.items()):
            raise RuleError("verify.secrets must be an object {access key: secret}")
        v.secrets.update(secrets_)
        if "enabled" in body:
            v.enabled = bool(body["enabled"])
        for k in ("clock_offset_s", "max_skew_s"):
            if k in body:
                if not isinstance(body[k], (int, float)) or isinstance(body[k], bool):
                    raise RuleError(f"verify.{k} must be a number")
                setattr(v, k, body[k])
        self.log.info("verify: enabled=%s keys=%s clock_offset_s=%s max_skew_s=%s", v.enabled,
                      sorted(v.secrets), v.clock_offset_s, v.max_skew_s)
        return 200, v.describe()

    def _revoke(self, body):
        if isinstance(body, dict) and body.get("mode", "access_denied") not in REVOKE_MODES:
            raise RuleError("revoke.mode must be access_denied or bare")
        if isinstance(body, dict) and "after_forwarded" in body:
            arm = RevokeArm(body)
            self.revoke_arms.append(arm)
            self.log.info("revocation of %s armed: after %d forwarded request(s) matching %s",
                          arm.keys if arm.keys == "all-issued" else sorted(arm.keys), arm.n,
                          body.get("match", {}))
            return 200, {"armed": arm.describe()}
        if not isinstance(body, dict) or set(body) - {"access_keys", "mode"}:
            raise RuleError("revoke takes access_keys and mode (and after_forwarded, match)")
        keys = body.get("access_keys")
        if keys == "all-issued":
            keys = list(self.issued)
        elif not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise RuleError('revoke.access_keys must be "all-issued" or a list of access keys')
        self.verifier.revoked.update((k, body.get("mode", "access_denied")) for k in keys)
        self.log.info("revoked %s (%s)", sorted(keys), body.get("mode", "access_denied"))
        return 200, {"revoked": sorted(keys)}

    def fire_arms_on_arrival(self, head, service, akid, body):
        """At the forwarding decision, before the revocation check: an arm with
        after_forwarded 0 that accepts this request revokes its keys now, so this
        request is refused too (the first request of its kind that a revocation hits)."""
        for arm in list(self.revoke_arms):
            if arm.n == 0 and arm.match.matches(head, service, akid, body):
                self._fire(arm)

    def _fire(self, arm):
        keys = list(self.issued) if arm.keys == "all-issued" else list(arm.keys)
        self.verifier.revoked.update((k, arm.mode) for k in keys)
        arm.fired = True
        self.revoke_arms.remove(arm)
        self.log.info("revoked %s after %d forwarded request(s)", sorted(keys), arm.forwarded)

    def count_forwarded(self, head, service, akid, body):
        """A request is being forwarded: armed revocations count it, and the one whose
        n-th it is revokes its keys now (before any other request is decided)."""
        for arm in list(self.revoke_arms):
            if not arm.match.matches(head, service, akid, body):
                continue
            arm.forwarded += 1
            if arm.n == 0 or arm.forwarded < arm.n:
                continue
            self._fire(arm)

    async def _control_client(self, reader, writer):
        try:
            while True:
                head = await http1.read_head(reader)
                if head is None:
                    return
                _raw, data = await http1.read_body(reader, http1.request_framing(head), 1 << 20)
                try:
                    body = json.loads(data) if data.strip() else None
                    status, obj = self.control(head.method, head.path, body)
                except json.JSONDecodeError as e:
                    status, obj = 400, {"error": f"bad JSON: {e}"}
                out = json.dumps(obj).encode()
                writer.write(http1.build_reply(status, [("Content-Type", "application/json")], out))
                await writer.drain()
                if "close" in head.tokens("connection"):
                    return
        except (HttpError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


class ProxyThread:
    """Runs a Proxy on its own event loop in a background thread (for Python tests).

        with ProxyThread("http://127.0.0.1:5000") as px:
            px.add_rule({...}); ... px.endpoint ...
    """

    def __init__(self, upstream, **kw):
        kw.setdefault("control_port", 0)
        self.proxy = Proxy(upstream, **kw)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True, name="floe-proxy")
        self._ready = threading.Event()
        self._err = None

    def _run(self):
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.proxy.start())
        except BaseException as e:  # noqa: BLE001 - reported to the starter
            self._err = e
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.proxy.close())
        self.loop.close()

    def start(self):
        self.thread.start()
        self._ready.wait(30)
        if self._err:
            raise self._err
        return self

    def stop(self):
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.proxy.port}"

    @property
    def tls_endpoint(self):
        return f"https://127.0.0.1:{self.proxy.tls_port}"

    @property
    def control_endpoint(self):
        return f"http://127.0.0.1:{self.proxy.control_port}"

    def control(self, method, path, body=None):
        async def call():
            return self.proxy.control(method, path, body)
        status, obj = asyncio.run_coroutine_threadsafe(call(), self.loop).result(30)
        if status != 200:
            raise RuntimeError(f"control {method} {path}: {status} {obj}")
        return obj

    def add_rule(self, rule):
        return self.control("POST", "/rules", rule)["id"]

    def rules(self):
        return self.control("GET", "/rules")

    def rule(self, rid):
        return self.control("GET", f"/rules/{rid}")

    def delete_rules(self):
        return self.control("DELETE", "/rules")

    def delete_rule(self, rid):
        return self.control("DELETE", f"/rules/{rid}")

    def release(self, rid):
        return self.control("POST", f"/rules/{rid}/release")["released"]

    def stats(self):
        return self.control("GET", "/stats")

    def reset(self, all=False):  # noqa: A002 - mirrors the JSON field
        return self.control("POST", "/reset", {"all": True} if all else None)

    def verify(self, **cfg):
        return self.control("POST", "/verify", cfg)

    def serialize(self, enabled=True):
        return self.control("POST", "/serialize", {"enabled": enabled})

    def revoke(self, access_keys, mode="access_denied", after_forwarded=None, match=None):
        body = {"access_keys": access_keys, "mode": mode}
        if after_forwarded is not None:
            body["after_forwarded"] = after_forwarded
        if match is not None:
            body["match"] = match
        return self.control("POST", "/revoke", body)
