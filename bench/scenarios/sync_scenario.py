"""The sync scenario (issue 22): a tree of small files synced up to an empty
prefix, then again with nothing changed, then with 1% changed — floe sync
beside `aws s3 sync` and `rclone sync`, each to a prefix of its own, in the
same run.

The store is moto (nginx cannot list) behind the test proxy
(tests/support/proxy), which counts every request a tool sends: listings
(GET on the bucket), HEADs, PUTs and the rest. Each tool runs as a whole
process: wall time, CPU and peak RSS from bench/scenarios/harness.py's
run(). After each phase the prefix is checked: every file of the tree
there, with the size it has on disk (so the changed ones with their new
size). The load average when each tool starts is recorded beside its
figures: the machine is shared.

Fairness: 16 transfers in flight for every tool (floe --concurrency 16;
aws s3 max_concurrent_requests = 16; rclone --transfers 16 --checkers 16),
each printing only errors (floe and aws --only-show-errors, rclone -q),
each with its own default way of deciding what changed (floe and aws:
size and the listing's LastModified; rclone: size and the modification
time it stores in the object's metadata, which it reads back with a HEAD
per object).
"""
import json
import os
import sys
import time
import urllib.request

import stores

SCENARIO = "sync of {n:,} small files"
PHASES = ("initial", "unchanged", "changed")
BUCKET = "bench-sync"


def _control(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


class _Store:
    """moto with the test proxy in front; stopped by stop()."""

    def __init__(self, h):
        self.procs = []
        env = dict(h.env)
        mport = stores.start_moto(self.procs, h.work, env, "sync-moto.log")
        info = stores.start_proxy(self.procs, h.work, env, mport, "sync-proxy")
        self.endpoint = f"http://127.0.0.1:{info['port']}"
        self.ctl = info["control_port"]

    def start_counting(self):
        _control(self.ctl, "POST", "/reset")
        never = {"nth": [10 ** 9]}
        act = {"type": "delay", "ms": 0}
        self.rules = {
            "listing": _control(self.ctl, "POST", "/rules", {"match": {"method": "GET", "path": f"^/{BUCKET}/?$"},
                                                             "trigger": never, "action": act})["id"],
            "head": _control(self.ctl, "POST", "/rules", {"match": {"method": "HEAD"}, "trigger": never,
                                                          "action": act})["id"],
            "put": _control(self.ctl, "POST", "/rules", {"match": {"method": "PUT"}, "trigger": never,
                                                         "action": act})["id"],
        }

    def counts(self):
        out = {k: _control(self.ctl, "GET", f"/rules/{rid}")["matched"] for k, rid in self.rules.items()}
        out["requests"] = _control(self.ctl, "GET", "/stats")["requests"]
        out["other"] = out["requests"] - out["listing"] - out["head"] - out["put"]
        return out

    def stop(self):
        stores.stop_all(self.procs)


def _make_tree(root, n):
    """n files of about 1 KiB in n/100 directories, an hour old."""
    old = time.time() - 3600
    for i in range(n):
        d = os.path.join(root, f"d{i // 100:03d}")
        if i % 100 == 0:
            os.makedirs(d, exist_ok=True)
        p = os.path.join(d, f"f{i:05d}.dat")
        with open(p, "wb") as f:
            f.write((f"{i:05d}:" + "x" * 1018 + "\n").encode())
        os.utime(p, (old, old))


def _change(root, n):
    """1% of the files rewritten, each a little longer (and so newer)."""
    for i in range(0, n, 100):
        with open(os.path.join(root, f"d{i // 100:03d}/f{i:05d}.dat"), "ab") as f:
            f.write(b"changed\n")


def run(h, run_child):
    """Runs the scenario on harness `h`, recording one row per tool."""
    n = 1000 if h.quick else 10000
    sc = SCENARIO.format(n=n)
    tree = os.path.join(h.work, "sync-tree")
    store = None
    try:
        store = _Store(h)
        env = dict(h.env)
        cfg = os.path.join(h.work, "sync-aws-config")
        with open(cfg, "w") as f:
            f.write("[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n  max_concurrent_requests = 16\n")
        env.update({"AWS_CONFIG_FILE": cfg, "RCLONE_CONFIG_SYNC_TYPE": "s3", "RCLONE_CONFIG_SYNC_PROVIDER": "Other",
                    "RCLONE_CONFIG_SYNC_ENDPOINT": store.endpoint, "RCLONE_CONFIG_SYNC_REGION": "us-east-1",
                    "RCLONE_CONFIG_SYNC_ACCESS_KEY_ID": env["AWS_ACCESS_KEY_ID"],
                    "RCLONE_CONFIG_SYNC_SECRET_ACCESS_KEY": env["AWS_SECRET_ACCESS_KEY"],
                    "RCLONE_CONFIG_SYNC_FORCE_PATH_STYLE": "true"})
        floe = [h.floe, "--endpoint-url", store.endpoint, "--region", "us-east-1"]
        run_child(floe + ["mb", f"s3://{BUCKET}"], env)
        _make_tree(tree, n)
        tools = {
            "floe sync": lambda p: floe + ["sync", tree, f"s3://{BUCKET}/{p}/", "--concurrency", "16",
                                           "--only-show-errors"],
            "aws s3 sync": lambda p: ["aws", "--endpoint-url", store.endpoint, "s3", "sync", tree,
                                      f"s3://{BUCKET}/{p}/", "--only-show-errors"],
            "rclone sync": lambda p: ["rclone", "sync", tree, f"sync:{BUCKET}/{p}", "--transfers", "16",
                                      "--checkers", "16", "-q", "--s3-no-check-bucket"] + h.rclone_quiet,
        }
        figures = {tool: {} for tool in tools}
        failed = {}
        for phase in PHASES:
            if phase == "changed":
                _change(tree, n)
            for tool, cmd in tools.items():
                if tool in failed:
                    continue
                prefix = tool.split()[0]
                try:
                    store.start_counting()
                    load = os.getloadavg()[0]
                    c = run_child(cmd(prefix), env)
                    counts = store.counts()
                    _check(run_child, floe, env, prefix, tree)
                except Exception as e:  # a peer that fails is reported, the run goes on
                    failed[tool] = f"{phase}: {str(e).strip().splitlines()[-1][:300] if str(e).strip() else e}"
                    continue
                f = figures[tool]
                f[f"{phase}_s"] = c.wall
                f[f"{phase}_cpu_s"] = c.cpu
                f[f"{phase}_rss_mib"] = c.rss_kib / 1024
                f[f"{phase}_load"] = load
                for k, v in counts.items():
                    f[f"{phase}_{k}"] = v
                print(f"bench: {sc:24} {tool:16} {phase:9} {c.wall:7.2f} s  cpu {c.cpu:6.2f} s  "
                      f"requests {counts['requests']} (listing {counts['listing']}, head {counts['head']}, "
                      f"put {counts['put']}, other {counts['other']}); load average {load:.1f}",
                      file=sys.stderr, flush=True)
        for tool in tools:
            if tool in failed:
                h.record(sc, tool, error=failed[tool])
            else:
                h.record(sc, tool, files=n, **figures[tool])
    except Exception as e:  # the store did not start, or the tree could not be made
        h.record(sc, "floe sync", error=str(e).strip().splitlines()[-1][:300] if str(e).strip() else repr(e))
    finally:
        if store:
            store.stop()


def _check(run_child, floe, env, prefix, tree):
    """Every file of the tree under the prefix, each with the size it has on
    disk (the changed ones with their new size)."""
    c = run_child(floe + ["--json", "ls", "--recursive", f"s3://{BUCKET}/{prefix}/"], env)
    sizes = {o["key"][len(prefix) + 1:]: o["size"] for o in c.json()["objects"]}
    want = _local_sizes(tree)
    if len(sizes) != len(want):
        raise RuntimeError(f"{len(sizes)} objects under {prefix}/, want {len(want)}")
    wrong = sorted(rel for rel, size in want.items() if sizes.get(rel) != size)
    if wrong:
        raise RuntimeError(f"{len(wrong)} files not synced (e.g. {wrong[0]}: "
                           f"{sizes.get(wrong[0])} bytes in the store, {want[wrong[0]]} on disk)")


def _local_sizes(tree):
    """The tree's files as relative path -> size, read from the disk."""
    out = {}
    for d, _, names in os.walk(tree):
        for name in names:
            p = os.path.join(d, name)
            out[os.path.relpath(p, tree)] = os.path.getsize(p)
    return out
