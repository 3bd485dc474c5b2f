"""Fault-injection rules: match, trigger, action. Validated strictly (unknown keys
are errors) so a typo in a test fails loudly instead of silently never firing."""
import base64
import random
import re
import secrets

SERVICES = ("s3", "sts", "sqs", "iam")


class RuleError(ValueError):
    pass


def _only(obj, allowed, what):
    if not isinstance(obj, dict):
        raise RuleError(f"{what} must be a JSON object")
    extra = set(obj) - set(allowed)
    if extra:
        raise RuleError(f"unknown key(s) in {what}: {', '.join(sorted(extra))}")


def _int(v, what, minimum=0):
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise RuleError(f"{what} must be an integer >= {minimum}")
    return v


class Match:
    KEYS = ("service", "method", "path", "query", "headers_present", "header", "access_key", "body")

    def __init__(self, spec):
        spec = spec or {}
        _only(spec, self.KEYS, "match")
        self.spec = spec
        self.service = spec.get("service")
        if self.service is not None and self.service not in SERVICES:
            raise RuleError(f"match.service must be one of {', '.join(SERVICES)}")
        self.method = spec.get("method")
        if self.method is not None and not isinstance(self.method, str):
            raise RuleError("match.method must be a string")
        try:
            self.path = re.compile(spec["path"]) if "path" in spec else None
            self.query = re.compile(spec["query"]) if "query" in spec else None
            hdr = spec.get("header", {})
            if not isinstance(hdr, dict):
                raise RuleError("match.header must be an object {name: regex}")
            self.header = {k.lower(): re.compile(v) for k, v in hdr.items()}
            self.body = re.compile(spec["body"]) if "body" in spec else None
        except (re.error, TypeError) as e:
            raise RuleError(f"bad regex in match: {e}") from None
        hp = spec.get("headers_present", [])
        if not isinstance(hp, list) or not all(isinstance(x, str) for x in hp):
            raise RuleError("match.headers_present must be a list of header names")
        self.headers_present = [h.lower() for h in hp]
        self.access_key = spec.get("access_key")

    def matches(self, head, service, access_key, body=None):
        """body: the request body when the proxy read it before forwarding (a form-encoded
        unsigned POST, or one the verifier hashed); None otherwise (a body match then fails)."""
        if self.service is not None and service != self.service:
            return False
        if self.method is not None and head.method.upper() != self.method.upper():
            return False
        if self.path is not None and not self.path.search(head.path):
            return False
        if self.query is not None and not self.query.search(head.query):
            return False
        for h in self.headers_present:
            if not head.has(h):
                return False
        for h, rx in self.header.items():
            vals = head.get_all(h)
            if not vals or not any(rx.search(v) for v in vals):
                return False
        if self.access_key is not None and access_key != self.access_key:
            return False
        if self.body is not None and (body is None or not self.body.search(body.decode("latin-1"))):
            return False
        return True


class Trigger:
    KEYS = ("nth", "every", "first", "after", "chance", "seed", "max")

    def __init__(self, spec):
        spec = spec if spec is not None else {"every": True}
        _only(spec, self.KEYS, "trigger")
        kinds = [k for k in ("nth", "every", "first", "after", "chance") if k in spec]
        if len(kinds) != 1:
            raise RuleError("trigger needs exactly one of nth, every, first, after, chance")
        self.kind = kinds[0]
        self.seed = None
        self.max = None
        if self.kind != "chance" and ("seed" in spec or "max" in spec):
            raise RuleError("seed and max belong to a chance trigger")
        if self.kind == "nth":
            nth = spec["nth"]
            if isinstance(nth, int):
                nth = [nth]
            if not isinstance(nth, list) or not nth:
                raise RuleError("trigger.nth must be a non-empty list of integers >= 1")
            self.nth = {_int(n, "trigger.nth item", 1) for n in nth}
        elif self.kind == "every":
            if spec["every"] is not True:
                raise RuleError("trigger.every must be true")
        elif self.kind == "first":
            self.k = _int(spec["first"], "trigger.first", 0)
        elif self.kind == "after":
            self.k = _int(spec["after"], "trigger.after", 0)
        else:
            p = spec["chance"]
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
                raise RuleError("trigger.chance must be a number in [0, 1]")
            self.p = float(p)
            seed = spec.get("seed")
            if seed is None:
                seed = secrets.randbelow(2**31)
            self.seed = _int(seed, "trigger.seed", 0)
            if "max" in spec:
                self.max = _int(spec["max"], "trigger.max", 0)
            self.rng = random.Random(self.seed)

    def fires(self, matched, fired):
        """matched: this request's 1-based index among the rule's matches."""
        if self.kind == "nth":
            return matched in self.nth
        if self.kind == "every":
            return True
        if self.kind == "first":
            return matched <= self.k
        if self.kind == "after":
            return matched > self.k
        draw = self.rng.random()   # one draw per matching request, fired or not
        if self.max is not None and fired >= self.max:
            return False
        return draw < self.p


ACTIONS = {
    "reply": ("type", "when", "raw_b64", "fix_length", "status", "headers", "body", "ms"),
    "delay": ("type", "ms"),
    "delay_body": ("type", "ms", "head_ms"),
    "stall": ("type",),
    "stall_body": ("type", "after_bytes"),
    "cut": ("type", "when", "after_bytes"),
    "close_after": ("type",),
    "hold": ("type",),
    "flip": ("type", "where", "offset"),
}


class Action:
    def __init__(self, spec):
        if not isinstance(spec, dict) or spec.get("type") not in ACTIONS:
            raise RuleError(f"action.type must be one of {', '.join(ACTIONS)}")
        self.type = spec["type"]
        _only(spec, ACTIONS[self.type], f"action ({self.type})")
        self.spec = spec
        self.when = spec.get("when")
        if self.type == "reply":
            self.when = self.when or "before"
            if self.when not in ("before", "after"):
                raise RuleError("reply.when must be before or after")
            self.ms = _int(spec.get("ms", 0), "reply.ms", 0)
            if self.ms and self.when != "before":
                raise RuleError("reply.ms only applies to when=before")
            if "raw_b64" in spec:
                if any(k in spec for k in ("status", "headers", "body")):
                    raise RuleError("reply takes raw_b64 or status/headers/body, not both")
                try:
                    self.raw = base64.b64decode(spec["raw_b64"], validate=True)
                except (ValueError, TypeError):
                    raise RuleError("reply.raw_b64 is not valid base64") from None
                self.fix_length = bool(spec.get("fix_length", False))
            else:
                if "fix_length" in spec:
                    raise RuleError("fix_length only applies to raw_b64")
                self.raw = None
                self.status = _int(spec.get("status", 200), "reply.status", 100)
                hdrs = spec.get("headers", {})
                if not isinstance(hdrs, dict) or not all(
                        isinstance(k, str) and isinstance(v, str) for k, v in hdrs.items()):
                    raise RuleError("reply.headers must be an object of strings")
                self.headers = hdrs
                body = spec.get("body", "")
                if not isinstance(body, str):
                    raise RuleError("reply.body must be a string")
                self.body = body.encode("utf-8")
        elif self.type == "delay":
            self.ms = _int(spec.get("ms", 0), "delay.ms", 0)
        elif self.type == "delay_body":
            self.ms = _int(spec.get("ms", 0), "delay_body.ms", 0)
            self.head_ms = _int(spec.get("head_ms", 0), "delay_body.head_ms", 0)
        elif self.type == "stall_body":
            self.after_bytes = _int(spec.get("after_bytes", 0), "stall_body.after_bytes", 0)
        elif self.type == "cut":
            self.when = self.when or "before"
            if self.when not in ("before", "after", "mid_body"):
                raise RuleError("cut.when must be before, after or mid_body")
            if "after_bytes" in spec and self.when != "mid_body":
                raise RuleError("cut.after_bytes only applies to when=mid_body")
            self.after_bytes = spec.get("after_bytes")
            if self.after_bytes is not None:
                _int(self.after_bytes, "cut.after_bytes", 0)
        elif self.type == "flip":
            self.where = spec.get("where", "reply_body")
            if self.where not in ("reply_body", "request_body"):
                raise RuleError("flip.where must be reply_body or request_body")
            self.offset = _int(spec.get("offset", 0), "flip.offset", 0)
        if self.type not in ("reply", "cut") and self.when is not None:
            raise RuleError(f"{self.type} takes no 'when'")


class Rule:
    def __init__(self, rid, spec):
        _only(spec, ("match", "trigger", "action", "name"), "rule")
        if "action" not in spec:
            raise RuleError("rule needs an action")
        name = spec.get("name", "")
        if not isinstance(name, str):
            raise RuleError("rule.name must be a string")
        self.id = rid
        self.name = name
        self.match = Match(spec.get("match"))
        self.trigger = Trigger(spec.get("trigger"))
        self.action = Action(spec["action"])
        self.matched = 0
        self.fired = 0
        self.held = []          # asyncio.Future per reply held now
        self.released = 0
        self.spec = spec

    def consider(self, head, service, access_key, body=None):
        """Counts a match and says whether the rule fires for this request."""
        if not self.match.matches(head, service, access_key, body):
            return False
        self.matched += 1
        if self.trigger.fires(self.matched, self.fired):
            self.fired += 1
            return True
        return False

    def describe(self):
        return {"id": self.id, "name": self.name, "matched": self.matched, "fired": self.fired,
                "held": len(self.held), "released": self.released, "seed": self.trigger.seed,
                "match": self.spec.get("match", {}), "trigger": self.spec.get("trigger", {"every": True}),
                "action": {k: v for k, v in self.spec["action"].items()}}


class RevokeArm:
    """POST /revoke with "after_forwarded": n: the revocation happens when the proxy
    forwards the n-th request `match` accepts (counted from arming), in the same step as
    that forwarding decision: that request still goes upstream, and every request the
    proxy forwards after it is checked against the new revocations."""

    def __init__(self, spec):
        _only(spec, ("access_keys", "mode", "after_forwarded", "match"), "revoke")
        self.n = _int(spec["after_forwarded"], "revoke.after_forwarded", 0)
        self.match = Match(spec.get("match"))
        keys = spec.get("access_keys")
        if keys != "all-issued" and (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)):
            raise RuleError('revoke.access_keys must be "all-issued" or a list of access keys')
        self.keys = keys
        self.mode = spec.get("mode", "access_denied")
        self.forwarded = 0
        self.fired = False
        self.spec = spec

    def describe(self):
        return {"after_forwarded": self.n, "forwarded": self.forwarded, "fired": self.fired,
                "access_keys": self.keys, "mode": self.mode, "match": self.spec.get("match", {})}
