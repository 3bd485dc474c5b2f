"""The watch scenario (issue 33): `floe watch` beside a boto3 consumer doing
the same steps (bench/peers/boto3_watch.py: receive, HEAD, one ledger commit
per batch, delete) on the same moto in one run; the same with 10% of the
objects failing (poison isolation); and 3 replicas registering one queue's
objects exactly once.

The store is moto behind the test proxy (tests/support/proxy) with its
per-object serialisation on (moto's create-only writes are not atomic
without it: docs/ledger.md). Each consumer gets a bucket and queue of its
own holding the same objects, their ObjectCreated notifications already in
the queue when it starts (set-up through moto directly). Figures:

- objects per second: objects / (start to the last one registered), the
  watcher's start-up and ledger creation included;
- CPU per object: the consumer process's user + system CPU (wait4) over
  its whole life, divided by the objects it registered (floe's idle long
  polls after the last one are included: it is stopped within 0.5 s);
- poison: 10% more objects whose HEAD the proxy answers 400 InvalidRequest
  every time (failing, not retried, their messages backed off), put among
  the healthy ones (one after every nine) so that the queue hands them out
  among them; the healthy objects' throughput against a run without them
  made at the same time on a store of its own (moto and proxy), in pairs
  (at least 3; the stores swap roles), the median of the pairs' ratios; the
  clean run's queue holds as many messages delayed past the run as the
  failing run has failing objects (ballast: moto's receive walks the whole
  queue), unless FLOE_WATCH_BENCH_BALLAST=0;
- replicas: 3 floe watch processes on one queue and one ledger, the
  objects' events fed to the queue while they run (as for the pairs); the ledger
  must then hold each object exactly once (`floe ledger ls`, `verify`) and
  the replicas' committed counts must add up to the object count.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import stores

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "..", "peers", "boto3_watch.py")
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _control(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with NO_PROXY.open(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


class _Store:
    def __init__(self, h, tag=""):
        import boto3
        self.procs = []
        env = dict(h.env)
        self.moto_port = stores.start_moto(self.procs, h.work, env, f"watch-moto{tag}.log")
        info = stores.start_proxy(self.procs, h.work, env, self.moto_port, f"watch-proxy{tag}")
        self.endpoint = f"http://127.0.0.1:{info['port']}"
        self.ctl = info["control_port"]
        _control(self.ctl, "POST", "/serialize", {"enabled": True})
        direct = f"http://127.0.0.1:{self.moto_port}"
        keys = {"region_name": "us-east-1", "aws_access_key_id": env.get("AWS_ACCESS_KEY_ID", "bench"),
                "aws_secret_access_key": env.get("AWS_SECRET_ACCESS_KEY", "bench")}
        self.s3 = boto3.client("s3", endpoint_url=direct, **keys)
        self.sqs = boto3.client("sqs", endpoint_url=direct, **keys)

    def prepare(self, name, keys):
        """A bucket and a queue whose notifications hold an event per key
        (keys empty: the bucket and queue only, for put_all later)."""
        self.s3.create_bucket(Bucket=name)
        url = self.sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
        arn = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        self.s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]})
        self.put_all(name, keys)
        deadline = time.monotonic() + 120
        while self._visible(url) < len(keys):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name}: {self._visible(url)} events in the queue, want {len(keys)}")
            time.sleep(0.2)  # moto delivers notifications as it stores: polling a count
        return url

    def prepare_fed(self, name, keys):
        """A bucket holding the keys (no notifications) and an empty queue;
        returns the queue's URL and an S3 event body per key, in order, for
        _Feeder (S3's shape, as the watch-events tests send it)."""
        self.s3.create_bucket(Bucket=name)
        url = self.sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
        with ThreadPoolExecutor(16) as pool:
            etags = list(pool.map(lambda k: self.s3.put_object(Bucket=name, Key=k, Body=k.encode() * 8)["ETag"], keys))
        bodies = []
        for k, etag in zip(keys, etags):
            obj = {"key": urllib.parse.quote_plus(k), "size": len(k.encode()) * 8, "eTag": etag.strip('"')}
            bodies.append(json.dumps({"Records": [{
                "eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "us-east-1",
                "eventTime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()), "eventName": "ObjectCreated:Put",
                "s3": {"s3SchemaVersion": "1.0", "bucket": {"name": name}, "object": obj}}]}))
        return url, bodies

    def put_all(self, name, keys):
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda k: self.s3.put_object(Bucket=name, Key=k, Body=k.encode() * 8), keys))

    def _visible(self, url):
        a = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
        return int(a["Attributes"]["ApproximateNumberOfMessages"])

    def stop(self):
        stores.stop_all(self.procs)


class _Feeder(threading.Thread):
    """Sends the event bodies to the queue (SendMessageBatch, ten at a time)
    while fewer than `high` messages are visible: moto's ReceiveMessage
    costs about 1 ms per message in the queue (CPU-bound: concurrent
    receives add nothing), so a queue filled in advance makes moto's receive
    the bottleneck of any consumer; a short queue measures the consumer.
    `visible` keeps the counts seen, to show the consumer was never starved."""

    def __init__(self, store, url, bodies, high=60):
        super().__init__(daemon=True)
        self.store, self.url, self.bodies, self.high = store, url, bodies, high
        self.visible = []
        self.error = None

    def run(self):
        import boto3
        try:
            sqs = boto3.client("sqs", endpoint_url=self.store.sqs.meta.endpoint_url, region_name="us-east-1",
                               aws_access_key_id="bench", aws_secret_access_key="bench")
            sent = 0
            while sent < len(self.bodies):
                v = int(sqs.get_queue_attributes(QueueUrl=self.url, AttributeNames=["ApproximateNumberOfMessages"])
                        ["Attributes"]["ApproximateNumberOfMessages"])
                self.visible.append(v)
                if v + 10 > self.high:
                    time.sleep(0.02)  # the consumer has its supply: polling a count
                    continue
                chunk = self.bodies[sent:sent + 10]
                # None: ballast, a message delayed past the run (_Run).
                sqs.send_message_batch(QueueUrl=self.url, Entries=[
                    {"Id": str(i), "MessageBody": b} if b is not None else
                    {"Id": str(i), "MessageBody": "ballast", "DelaySeconds": 900} for i, b in enumerate(chunk)])
                sent += len(chunk)
        except Exception as e:  # reported by the run
            self.error = e


class _Watcher:
    """One floe watch process; its metrics address read from its log."""

    def __init__(self, floe, env, queue, ledger, pattern, extra=()):
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(floe + ["watch", "--queue", queue, "--ledger", ledger, "--metrics", "127.0.0.1:0",
                                          "--log-format", "json", *extra, pattern],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.url = None
        self.log = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 60
        while self.url is None:
            if self.p.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("floe watch did not start: " + "".join(self.log)[-1000:])
            time.sleep(0.05)  # start-up poll

    def _read(self):
        for raw in self.p.stderr:
            line = raw.decode(errors="replace")
            self.log.append(line)
            if self.url is None and '"event":"metrics"' in line.replace(" ", ""):
                self.url = "http://" + json.loads(line)["address"]

    def metric(self, name):
        with NO_PROXY.open(self.url + "/metrics", timeout=10) as r:
            m = re.search(r"^" + re.escape(name) + r" (\S+)$", r.read().decode(), re.M)
        return float(m.group(1)) if m else 0.0

    def stop(self):
        """SIGTERM; returns the process's CPU seconds (wait4)."""
        self.p.send_signal(signal.SIGTERM)
        _, _, ru = os.wait4(self.p.pid, 0)
        self.p.returncode = 0
        return ru.ru_utime + ru.ru_stime


def _until(what, predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out: {what}")
        time.sleep(0.05)  # polling a count
    return time.perf_counter()


def _keys(healthy, poison):
    """The healthy keys with the failing ones spread among them (one after
    every healthy/poison), in the order they are put: the queue hands the
    failing messages out among the healthy ones, not after them."""
    keys = [f"in/{i:06d}.dat" for i in range(healthy)]
    step = healthy // poison if poison else 0
    for j in range(poison):
        keys.insert((j + 1) * step + j, f"in/p-{j:06d}.dat")
    return keys


class _Run:
    """One floe watch over a prepared bucket and queue; `poison` of its
    objects' HEADs answered 400 by the proxy."""

    def __init__(self, store, name, healthy, poison, fed=False, ballast=0):
        self.store, self.name, self.healthy, self.poison = store, name, healthy, poison
        self.feeder = None
        if fed:
            keys = _keys(healthy, poison or ballast)
            self.url, bodies = store.prepare_fed(name, keys)
            if ballast:
                bodies = [None if "/p-" in k else b for k, b in zip(keys, bodies)]
            self.feeder = _Feeder(store, self.url, bodies)
        else:
            self.url = store.prepare(name, _keys(healthy, poison))
        self.rule = None
        if poison:
            self.rule = _control(store.ctl, "POST", "/rules", {
                "match": {"method": "HEAD", "path": f"^/{name}/in/p-"}, "trigger": {"every": True},
                "action": {"type": "reply", "status": 400, "headers": {"x-amz-request-id": "BENCH"}, "body": ""}})["id"]
        self.w = None
        self.done = None

    def start(self, floe, env):
        """floe: the CLI's path; the endpoint is this run's store's."""
        extra = os.environ.get("FLOE_WATCH_BENCH_ARGS", "").split()  # e.g. "--receive-ahead 0", to compare
        self.w = _Watcher([floe, "--endpoint-url", self.store.endpoint], env, self.url, f"s3://{self.name}/ledger",
                          f"s3://{self.name}/in/**", extra)
        if self.feeder:
            self.feeder.start()

    def check(self):
        if self.done is None and self.w.metric("floe_watch_objects_committed_total") >= self.healthy:
            self.done = time.perf_counter()
        return self.done is not None

    def finish(self):
        if self.w and self.w.p.poll() is not None:
            raise RuntimeError(f"{self.name}: floe watch exited early: " + "".join(self.w.log)[-500:])
        cpu = self.w.stop() if self.w else 0.0
        if os.environ.get("FLOE_WATCH_BENCH_LOGS") and self.w:  # a directory: each run's JSON log kept there
            self.w.reader.join(timeout=5)
            with open(os.path.join(os.environ["FLOE_WATCH_BENCH_LOGS"], self.name + ".log"), "w") as f:
                f.writelines(self.w.log)
        if self.rule is not None:
            _control(self.store.ctl, "DELETE", f"/rules/{self.rule}")
        if self.done is None:
            raise RuntimeError(f"{self.name}: {self.healthy} not registered")
        if self.feeder and self.feeder.error:
            raise RuntimeError(f"{self.name}: feeding the queue failed: {self.feeder.error}")
        seconds = self.done - self.w.t0
        out = {"objects": self.healthy, "seconds": seconds, "objects_per_s": self.healthy / seconds,
               "cpu_s": cpu, "cpu_ms_per_object": cpu * 1e3 / self.healthy}
        if self.feeder and self.feeder.visible:
            v = sorted(self.feeder.visible)
            out["fed_visible_median"] = v[len(v) // 2]
        return out


def _pair(h, pair_stores, floe, env, i, n):
    """The clean run and the 10%-failing run at the same time, each on a
    store (moto and proxy) of its own, so that both see the same moments of
    the shared host; the stores swap roles and the start order alternates
    from pair to pair."""
    a, b = (pair_stores[0], pair_stores[1]) if i % 2 == 0 else (pair_stores[1], pair_stores[0])
    # Ballast (the default; FLOE_WATCH_BENCH_BALLAST=0 leaves it out): the
    # clean run's queue also holds as many messages delayed past the run as
    # the failing run has failing objects, so both queues are as long. moto's
    # ReceiveMessage walks every message a queue holds (SQS's does not), so
    # without it the failing run's longer queue slows its every receive and
    # the pair measures moto as much as the watcher.
    ballast = 0 if os.environ.get("FLOE_WATCH_BENCH_BALLAST", "1") == "0" else n // 9
    runs = {"clean": _Run(a, f"bench-watch-clean-{i}", n, 0, fed=True, ballast=ballast),
            "poison": _Run(b, f"bench-watch-poison-{i}", n, n // 9, fed=True)}
    order = ("clean", "poison") if i % 2 == 0 else ("poison", "clean")
    try:
        for k in order:
            runs[k].start(h.floe, env)
        _until(f"pair {i}: {n} registered by both", lambda: all([r.check() for r in runs.values()]), 900)
    finally:
        got = {}
        for k in order:
            try:
                got[k] = runs[k].finish()
            except RuntimeError:
                pass
    return got["clean"], got["poison"]


def _replicas(h, store, floe, env, run_child, n):
    """3 floe watch processes on one queue and one ledger: each object once.
    The objects are put first (without notifications); their events are fed
    to the queue while the replicas run, keeping it short (_Feeder: a queue
    of 10,000 waiting messages made each of moto's receives outlast the
    long poll's read timeout). The time runs from the replicas' start to the
    last registration."""
    name = "bench-watch-replicas"
    t_prep = time.perf_counter()
    url, bodies = store.prepare_fed(name, [f"in/{i:06d}.dat" for i in range(n)])
    prepared = time.perf_counter() - t_prep
    feeder = _Feeder(store, url, bodies, high=100)
    ws = [_Watcher(floe, env, url, f"s3://{name}/ledger", f"s3://{name}/in/**") for _ in range(3)]
    t0 = min(w.t0 for w in ws)
    committed = lambda: sum(w.metric("floe_watch_objects_committed_total") for w in ws)
    try:
        feeder.start()
        done = _until(f"{n} registered by 3 replicas", lambda: committed() >= n or feeder.error, max(1800, n))
        if feeder.error:
            raise RuntimeError(f"feeding the queue failed: {feeder.error}")
        # Every message settled: nothing left in flight to register twice.
        _until("the queue drained", lambda: store._visible(url) == 0, 120)
        total = committed()
    finally:
        cpu = sum(w.stop() for w in ws)
    listed = run_child(floe + ["--json", "ledger", "ls", f"s3://{name}/ledger"], env).out.decode().splitlines()
    keys = [json.loads(line)["key"] for line in listed]
    verify = run_child(floe + ["ledger", "verify", f"s3://{name}/ledger"], env).out.decode()
    exactly_once = len(keys) == n == len(set(keys)) == int(total) and verify.startswith("ok:")
    return {"objects": n, "seconds": done - t0, "objects_per_s": n / (done - t0), "cpu_s": cpu,
            "cpu_ms_per_object": cpu * 1e3 / n, "committed_sum": total, "ledger_entries": len(keys),
            "exactly_once": exactly_once, "prepare_s": prepared}


PARTS = ("floe", "boto3", "poison", "replicas")


def run(h, run_child, parts=PARTS):
    n = 300 if h.quick else 2000
    replicas_n = 1000 if h.quick else 10000
    # The clean and the 10%-failing runs come in pairs, at least 3, the two
    # runs of a pair at the same time on stores of their own (_pair): a busy
    # moment on the shared host lands on both, and the ratio recorded is the
    # median of the pairs' ratios.
    pairs = max(3, getattr(h.a, "rounds", 1))
    sc = f"watch: {n:,} objects, 3 replicas × {replicas_n:,}"
    store = None
    extra = []
    try:
        store = _Store(h)
        env = dict(h.env)
        env.update({"AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"})
        floe = [h.floe, "--endpoint-url", store.endpoint]
        for i in range(pairs if "floe" in parts else 0):
            if "poison" in parts:
                if len(extra) == 0:
                    extra.append(_Store(h, "-b"))
                f, p = _pair(h, (store, extra[0]), floe, env, i, n)
            else:
                r = _Run(store, f"bench-watch-floe-{i}", n, 0)
                try:
                    r.start(h.floe, env)
                    _until(f"{n} registered", r.check, 900)
                finally:
                    f = r.finish()
            print(f"bench: {sc}  floe watch  {f['objects_per_s']:.1f} objects/s, {f['cpu_ms_per_object']:.3f} ms "
                  f"CPU/object (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
            h.record(sc, "floe watch", **f)
            if "poison" in parts:
                p["healthy_throughput_vs_clean"] = p["objects_per_s"] / f["objects_per_s"]
                print(f"bench: {sc}  floe watch, 10% failing  {p['objects_per_s']:.1f} healthy objects/s "
                      f"({p['healthy_throughput_vs_clean']:.3f} × the clean run beside it)", file=sys.stderr, flush=True)
                h.record(sc, "floe watch, 10% failing", **p)

        if "boto3" in parts:
            url = store.prepare("bench-watch-boto3", [f"in/{i:06d}.dat" for i in range(n)])
            store.s3.create_bucket(Bucket="bench-watch-boto3-ledger")
            peer_env = dict(env, AWS_DEFAULT_REGION="us-east-1")
            c = run_child([sys.executable, PEER, store.endpoint, url, "bench-watch-boto3-ledger", "ledger/", str(n)],
                          peer_env)
            j = c.json()
            if j["registered"] != n:
                raise RuntimeError(f"boto3 consumer: {j['registered']} registered, {j['skipped']} skipped of {n}")
            b = {"objects": j["registered"], "seconds": c.wall, "objects_per_s": j["registered"] / c.wall,
                 "cpu_s": c.cpu, "cpu_ms_per_object": c.cpu * 1e3 / j["registered"], "commits": j["commits"]}
            print(f"bench: {sc}  boto3        {b['objects_per_s']:.1f} objects/s, {b['cpu_ms_per_object']:.3f} ms "
                  "CPU/object", file=sys.stderr, flush=True)
            h.record(sc, "boto3 consumer", **b)

        if "replicas" in parts:
            r = _replicas(h, store, floe, env, run_child, replicas_n)
            print(f"bench: {sc}  3 replicas  {r['objects_per_s']:.1f} objects/s, ledger {r['ledger_entries']} entries, "
                  f"committed {r['committed_sum']:.0f}, exactly once: {r['exactly_once']}", file=sys.stderr, flush=True)
            h.record(sc, "floe watch × 3 replicas", **r)
    except Exception as e:  # the store did not start, or a consumer failed
        h.record(sc, "floe watch", error=str(e).strip().splitlines()[-1][:300] if str(e).strip() else repr(e))
    finally:
        for st in [store] + extra:
            if st:
                st.stop()


def main():
    """The scenario alone, without bench/run's nginx and peers' installs:
    python3 bench/scenarios/watch_scenario.py --build-dir build [--quick]
    [--parts floe,poison,boto3,replicas] [--json FILE]."""
    import argparse
    import harness
    import report
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=3, help="pairs of clean and 10%%-failing runs (at least 3)")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--json")
    a = ap.parse_args()
    parts = tuple(a.parts.split(","))
    if set(parts) - set(PARTS):
        ap.error(f"--parts: unknown {','.join(sorted(set(parts) - set(PARTS)))} (known: {','.join(PARTS)})")
    h = harness.Harness(argparse.Namespace(build_dir=a.build_dir, npm_dir="", quick=a.quick, rounds=a.rounds))
    try:
        run(h, harness.run, parts)
    finally:
        shutil.rmtree(h.work, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(h.results, f, indent=1)
    name = next(iter(h.results["scenarios"]), None)
    if name:
        print("\n".join(report._watch(name, h.results["scenarios"][name])))


if __name__ == "__main__":
    main()
