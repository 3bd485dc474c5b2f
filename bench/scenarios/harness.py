#!/usr/bin/env python3
"""bench/run's driver: floe and its peers on the same scenarios in one run.

Called by bench/run (which builds floe and installs the tools); not meant to
be run alone. Starts nginx (bench/nginx/nginx.conf.in) on 127.0.0.1 with its
objects on a tmpfs, runs wrk (the limit), floe and each peer on every
scenario, checks that every PUT delivered every byte, prints a Markdown
report on stdout and writes the raw results as JSON.

Every child runs through run(): wall time, and its own CPU time and peak RSS
from wait4(2). Tools that time their own loop (floe's bench_s3, boto3, the JS
SDK) also report the CPU of the timed part alone, without start-up.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import list_memory
import static_binary
import stores
import sync_scenario
import watch_scenario

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests",
                                "support", "proxy"))
import checksums  # noqa: E402  the test proxy's CRCs (C when a compiler is there)
from stores import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
MiB = 1 << 20
AK = "AKIDFLOEBENCHEXAMPLE"  # nginx checks no signature: any key will do
SK = "floe/bench/secret/not/checked/by/nginx00"


def body_pattern(n):
    return bytes((ord("a") + i % 26) for i in range(n))


class Child:
    def __init__(self, out, err, rc, wall, cpu, rss_kib):
        self.out, self.err, self.rc, self.wall, self.cpu, self.rss_kib = out, err, rc, wall, cpu, rss_kib

    def json(self):
        for line in reversed(self.out.decode(errors="replace").splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"no JSON from child: {self.err.decode(errors='replace')[-2000:]}")


def timed(cmd, work):
    """cmd under GNU time: its own CPU and peak RSS. (A child forked from this
    Python process inherits its RSS high-water mark in wait4's ru_maxrss, so
    the small `time` process stands between them.)"""
    fd, path = tempfile.mkstemp(prefix="rusage-", dir=work)
    os.close(fd)
    return ["/usr/bin/time", "-f", "%U %S %M", "-o", path] + list(cmd), path


def rusage_of(path):
    with open(path) as f:
        last = f.read().split("\n")
    os.unlink(path)
    fields = [ln for ln in last if ln.strip()][-1].split()
    return float(fields[0]) + float(fields[1]), int(fields[2])


def run(cmd, env=None, stdout=subprocess.PIPE, check=True, work=None):
    """Runs cmd; returns its output with its wall time, CPU and peak RSS."""
    full, ru_path = timed(cmd, work or tempfile.gettempdir())
    t0 = time.perf_counter()
    p = subprocess.Popen(full, env=env, stdout=stdout, stderr=subprocess.PIPE)
    err = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read()))
    t.start()
    out = p.stdout.read() if stdout == subprocess.PIPE else b""
    t.join()
    # CPU from wait4 (µs resolution; `time` adds its own ~1 ms), peak RSS
    # from `time`'s report on its child alone.
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    cpu = ru.ru_utime + ru.ru_stime
    try:
        _, rss = rusage_of(ru_path)
    except (OSError, IndexError, ValueError):
        rss = 0
    c = Child(out, err[0], p.returncode, wall, cpu, rss)
    if check and c.rc != 0:
        raise RuntimeError(f"{cmd[0]} failed ({c.rc}): {c.err.decode(errors='replace')[-2000:]}")
    return c


def first_byte_ms(cmd, env):
    """Process start to the first byte of the object on its stdout."""
    full, ru_path = timed(cmd, tempfile.gettempdir())
    t0 = time.perf_counter()
    p = subprocess.Popen(full, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    b = p.stdout.read(1)
    t = time.perf_counter() - t0
    rest = p.stdout.read()
    p.stderr.read()
    p.wait()
    _, rss = rusage_of(ru_path)
    if not b or p.returncode != 0 or len(b + rest) != 1024:
        raise RuntimeError(f"{cmd[0]}: no object on stdout")
    return t * 1e3, rss


def parse_bytes(text):
    m = re.match(r"([\d.]+)([KMGT]?)B", text)
    return float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2)]


# Every scenario in the order of a full run; the rounded ones run once per
# round (every tool in turn), the others once.
SCENARIOS = ("sign", "get", "put", "big-get", "big-put", "first-byte", "memory", "list-memory", "heal", "static",
             "ledger", "sync", "watch")
ROUNDED = ("sign", "get", "put", "big-get", "big-put")


class Harness:
    def __init__(self, a):
        self.a = a
        self.quick = a.quick
        self.results = {"scenarios": {}, "versions": {}, "notes": [], "quick": a.quick, "rounds": a.rounds}
        self.samples = {}  # (scenario, tool) -> every round's figures
        self.to_free = []  # the last big PUT's files, checked (free_big_put)
        self.round = 0
        self.build = os.path.abspath(a.build_dir)
        self.work = tempfile.mkdtemp(prefix="floe-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.root = os.path.join(self.work, "root")
        self.port = free_port()
        self.ep = f"http://127.0.0.1:{self.port}"
        self.big = (256 if self.quick else 1024) * MiB
        self.n_small = 400 if self.quick else 2000  # per peer
        self.n_floe = 4000 if self.quick else 20000
        self.secs = 2 if self.quick else 5
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("AWS_") or k.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
                del env[k]
        cfg = os.path.join(self.work, "aws-config")
        with open(cfg, "w") as f:
            f.write("[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n")
        env.update({
            "AWS_ACCESS_KEY_ID": AK, "AWS_SECRET_ACCESS_KEY": SK, "AWS_REGION": "us-east-1",
            "AWS_CONFIG_FILE": cfg, "AWS_SHARED_CREDENTIALS_FILE": os.path.join(self.work, "none"),
            "AWS_EC2_METADATA_DISABLED": "true", "AWS_REQUEST_CHECKSUM_CALCULATION": "when_required",
            "AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required", "FLOE_BENCH_NPM": a.npm_dir,
            "NODE_NO_WARNINGS": "1", "AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE": "1",
            "RCLONE_CONFIG": os.path.join(self.work, "rclone.conf"),
            "RCLONE_CONFIG_BENCH_TYPE": "s3", "RCLONE_CONFIG_BENCH_PROVIDER": "Other",
            "RCLONE_CONFIG_BENCH_ENDPOINT": self.ep, "RCLONE_CONFIG_BENCH_REGION": "us-east-1",
            "RCLONE_CONFIG_BENCH_ACCESS_KEY_ID": AK, "RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY": SK,
            "RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE": "true",
        })
        self.env = env
        self.floe = os.path.join(self.build, "src/cli/floe")
        # A failure is reported, not retried for minutes.
        self.rclone_quiet = ["--retries", "1", "--low-level-retries", "1"]
        self.floe_args = [self.floe, "--endpoint-url", self.ep, "--region", "us-east-1", "--path-style"]

    # ---------------------------------------------------------------- setup
    def setup(self):
        os.makedirs(os.path.join(self.root, "bench", "k"))
        os.makedirs(os.path.join(self.root, ".tmp"))
        os.makedirs(os.path.join(self.work, "tmp"))
        for d in (self.work, self.root, os.path.join(self.root, "bench"), os.path.join(self.root, ".tmp")):
            os.chmod(d, 0o777)  # the nginx worker may run as another user
        rnd = os.urandom(MiB)
        with open(os.path.join(self.root, "bench", "1k"), "wb") as f:
            f.write(rnd[:1024])
        with open(os.path.join(self.root, "bench", "1m"), "wb") as f:
            f.write(rnd)
        big = os.path.join(self.root, "bench", "1g")
        h = hashlib.sha256()
        crc = 0
        with open(big, "wb") as f:
            for i in range(self.big // MiB):
                chunk = rnd[i % 997:] + rnd[:i % 997]
                f.write(chunk)
                h.update(chunk)
                crc = checksums.crc64nvme(chunk, crc)
        self.big_sha = h.hexdigest()
        # The stand-in returns the big object's full-object CRC64NVME, as S3
        # does for an object uploaded with it: a GET with response checks on
        # verifies every byte against it (issue 31's checksums-on row).
        big_crc = base64.b64encode(crc.to_bytes(8, "big")).decode()
        self.big_path = big
        for i in range(self.n_small):
            os.link(os.path.join(self.root, "bench", "1k"), os.path.join(self.root, "bench", "k", f"{i:04d}"))
        self.put_body = os.path.join(self.work, "body-1k")
        with open(self.put_body, "wb") as f:
            f.write(body_pattern(1024))
        src = os.path.join(self.work, "put-src")
        os.makedirs(src)
        for i in range(self.n_small):
            os.link(self.put_body, os.path.join(src, str(i)))
        self.put_src = src
        with open(os.path.join(BENCH, "nginx", "nginx.conf.in")) as f:
            conf = f.read()
        conf = conf.replace("@ROOT@", self.root).replace("@WORK@", self.work).replace("@PORT@", str(self.port))
        with open(os.path.join(self.work, "nginx.conf"), "w") as f:
            f.write(conf)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        subprocess.run([nginx, "-c", os.path.join(self.work, "nginx.conf"), "-e",
                        os.path.join(self.work, "error.log")], check=True)
        stores.wait_for_url(f"{self.ep}/bench/1k", "nginx did not start", tries=200, pause=0.05)
        self.versions()

    def stop(self):
        pid = os.path.join(self.work, "nginx.pid")
        if os.path.exists(pid):
            try:
                os.kill(int(open(pid).read()), 15)
                time.sleep(0.2)
            except (OSError, ValueError):
                pass
        shutil.rmtree(self.work, ignore_errors=True)

    def versions(self):
        v = self.results["versions"]

        def first_line(cmd):
            try:
                return subprocess.run(cmd, capture_output=True, text=True, env=self.env).stdout.splitlines()[0].strip()
            except (OSError, IndexError):
                return "missing"

        v["floe"] = first_line([self.floe, "--version"])
        v["nginx"] = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
        v["wrk"] = first_line(["wrk", "-v"]) or "wrk"
        v["curl"] = first_line(["curl", "--version"])
        v["rclone"] = first_line(["rclone", "version"])
        v["awscli"] = first_line(["aws", "--version"])
        v["boto3"] = run(["python3", os.path.join(BENCH, "peers", "boto3_bench.py"), "version"], self.env).json()["version"]
        v["js-sdk-v3"] = run(["node", os.path.join(BENCH, "peers", "js_bench.cjs"), "version"], self.env).json()["version"]

    # ------------------------------------------------------------- recording
    def record(self, scenario, tool, **fig):
        # Every round's figures are kept; the result is, figure by figure, the
        # median over the rounds that succeeded (an error only when all
        # failed). Rounds run every tool in turn, so a busy moment on the
        # shared host lands in one tool's sample, not in its median.
        got = self.samples.setdefault((scenario, tool), [])
        got.append(fig)
        ok = [g for g in got if "error" not in g]
        if not ok:
            merged = dict(fig)
        else:
            merged = {}
            for k in ok[0]:
                vals = [g[k] for g in ok if k in g]
                if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                    merged[k] = statistics.median(vals)
                else:
                    merged[k] = vals[-1]
            if len(ok) > 1:
                merged["samples"] = len(ok)
        self.results["scenarios"].setdefault(scenario, {})[tool] = merged
        shown = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in fig.items())
        print(f"bench: {scenario:24} {tool:28} {shown}", file=sys.stderr, flush=True)

    def record_wrk(self, scenario, tool, got):
        rps, _, cpu_us = got
        self.record(scenario, tool, rps=rps, cpu_us_per_req=cpu_us)

    def attempt(self, scenario, tool, fn):
        # FLOE_BENCH_TOOLS="floe cp,boto3": only the tools whose names start so.
        only = [t for t in os.environ.get("FLOE_BENCH_TOOLS", "").split(",") if t]
        if only and not any(tool.startswith(t) for t in only):
            return
        t0 = time.perf_counter()
        try:
            fn()
            print(f"bench:   ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
        except Exception as e:  # a peer that fails is reported, the run goes on
            msg = str(e).strip().splitlines()[-1][:300] if str(e).strip() else type(e).__name__
            self.record(scenario, tool, error=msg)

    # --------------------------------------------------------------- checks
    def check_small_puts(self, prefix, n):
        d = os.path.join(self.root, "bench", prefix)
        want = body_pattern(1024)
        names = set(os.listdir(d)) if os.path.isdir(d) else set()
        missing = [i for i in range(n) if str(i) not in names]
        bad = [i for i in range(n) if str(i) in names and open(os.path.join(d, str(i)), "rb").read() != want]
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(d + ".warm", ignore_errors=True)
        if missing or bad:
            raise RuntimeError(f"PUT check: {len(missing)} of {n} objects missing, {len(bad)} with wrong bytes")

    @staticmethod
    def received_bytes(path):
        """A stored piece's payload, in pieces. nginx keeps a body as it came:
        one sent in the aws-chunked trailer form (floe's parts with checksums
        on) is decoded here, its framing checked, and its trailer's CRC64NVME
        (the CLI's default) checked against the bytes."""
        with open(path, "rb") as f:
            first = f.read(16)
            f.seek(0)
            if not re.match(rb"[0-9a-fA-F]{1,8}(;[^\r]*)?\r\n", first):
                while chunk := f.read(8 * MiB):
                    yield chunk
                return

            def bad(why):
                return RuntimeError(f"PUT check: {path}: aws-chunked body: {why}")
            crc = 0
            while True:
                line = f.readline(64)
                if not line.endswith(b"\r\n"):
                    raise bad(f"a chunk size line without CRLF: {line[:20]!r}")
                size = int(line[:-2].split(b";")[0], 16)
                if size == 0:
                    break
                data = f.read(size)
                if len(data) != size or f.read(2) != b"\r\n":
                    raise bad("a chunk shorter than its size, or not followed by CRLF")
                crc = checksums.crc64nvme(data, crc)
                yield data
            trailers = {}
            while (line := f.readline(4096)) != b"\r\n":
                if not line.endswith(b"\r\n"):
                    raise bad(f"a trailer line without CRLF: {line[:40]!r}")
                name, _, value = line[:-2].decode("latin-1").partition(":")
                trailers[name.strip().lower()] = value.strip()
            if f.read(1):
                raise bad("bytes after its end")
        want = trailers.get("x-amz-checksum-crc64nvme")
        if want is None or base64.b64decode(want) != crc.to_bytes(8, "big"):
            raise bad(f"the trailer's CRC64NVME {want} does not match the bytes")

    def check_big_put(self, key):
        """The object as received: one PUT's file, or the parts in order. Its
        files are removed just before the next upload starts (free_big_put):
        each upload then finds the same memory just freed. (Freed a few
        seconds earlier, during a slow check, the host took the pages back
        by then, and the next upload ran up to 3x slower getting them
        again: whichever row followed the slowest check lost.)"""
        h = hashlib.sha256()
        whole = os.path.join(self.root, "bench", key)
        pdir = os.path.join(self.root, "parts", os.path.dirname(key))
        base = os.path.basename(key) + "."
        parts = []
        if os.path.isdir(pdir):
            parts = sorted((int(f[len(base):]), os.path.join(pdir, f)) for f in os.listdir(pdir)
                           if f.startswith(base) and f[len(base):].isdigit())
        files = [p for _, p in parts] if parts else ([whole] if os.path.exists(whole) else [])
        size = 0
        for p in files:
            for chunk in self.received_bytes(p):
                h.update(chunk)
                size += len(chunk)
            self.to_free.append(p)
        if os.path.exists(whole) and whole not in files:
            self.to_free.append(whole)
        if size != self.big or h.hexdigest() != self.big_sha:
            raise RuntimeError(f"PUT check: {size} bytes received in {len(files)} piece(s), want {self.big} "
                               f"({'same' if h.hexdigest() == self.big_sha else 'different'} bytes)")
        return len(files)

    def free_big_put(self):
        for p in self.to_free:
            if os.path.exists(p):
                os.unlink(p)
        self.to_free = []

    # ------------------------------------------------------------ the limit
    def wrk(self, path, conns, script=None, secs=None):
        cmd = ["wrk", "-t1", f"-c{conns}", f"-d{secs or self.secs}s", "--timeout", "60s"]
        if script:
            cmd += ["-s", script]
        c = run(cmd + [f"{self.ep}{path}"], self.env)
        out = c.out.decode()
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        bps = parse_bytes(re.search(r"Transfer/sec:\s+(\S+)", out).group(1))
        if re.search(r"Non-2xx", out):
            raise RuntimeError("wrk: non-2xx replies")
        # wrk's own CPU per request (the whole process, from wait4): what the
        # kernel and a minimal client cost per request on this machine today.
        n = int(re.search(r"(\d+) requests in", out).group(1))
        return rps, bps, c.cpu * 1e6 / n

    # ------------------------------------------------------------ scenarios
    def signing(self):
        sc = "sign"

        def floe_sign():
            exe = os.path.join(self.build, "bench/sigv4/bench_sigv4")
            # The median of 5 repetitions: one sample on a shared host can
            # land on a busy moment (seen: 1.54 µs once, 1.06 µs on re-runs).
            c = run([exe, "--benchmark_filter=sign_headers_warm$", "--benchmark_format=json",
                     "--benchmark_min_time=0.2", "--benchmark_repetitions=5",
                     "--benchmark_report_aggregates_only=true"], self.env)
            b = next(x for x in json.loads(c.out)["benchmarks"] if x.get("aggregate_name") == "median")
            ns = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
            self.record(sc, "floe", us_per_sig=ns / 1e3, allocs_per_sig=b.get("allocs/sig", float("nan")))

        self.attempt(sc, "floe", floe_sign)
        n = 2000 if self.quick else 20000
        self.attempt(sc, "botocore S3SigV4Auth", lambda: self.record(
            sc, "botocore S3SigV4Auth", us_per_sig=run(["python3", os.path.join(BENCH, "peers", "boto3_bench.py"),
                                                         "sign", str(n)], self.env).json()["us_per_sig"]))
        self.attempt(sc, "@smithy/signature-v4", lambda: self.record(
            sc, "@smithy/signature-v4", us_per_sig=run(["node", os.path.join(BENCH, "peers", "js_bench.cjs"),
                                                         "sign", str(n)], self.env).json()["us_per_sig"]))

    def lib_small(self, sc, tool, cmd, put_prefix=None, n=None):
        def go():
            c = run(cmd, self.env)
            j = c.json()
            if j.get("failures"):
                raise RuntimeError(f"{j['failures']} failed requests")
            if put_prefix:
                self.check_small_puts(put_prefix, n or j["requests"])
            fig = dict(rps=j["rps"], cpu_us_per_req=j["cpu_us_per_req"], peak_rss_mib=c.rss_kib / 1024)
            if "allocs_per_req" in j:
                fig["allocs_per_req"] = j["allocs_per_req"]
            self.record(sc, tool, **fig)
        self.attempt(sc, tool, go)

    def curl_small(self, sc, op, par):
        n = self.n_small
        cfg = os.path.join(self.work, f"curl-{op}-{par}.cfg")
        prefix = f"put/curl-{par}"
        with open(cfg, "w") as f:
            f.write('write-out = "%{http_code}\\n"\n')
            for i in range(n):
                if op == "GET":
                    f.write(f'url = "{self.ep}/bench/1k"\noutput = "/dev/null"\n')
                else:
                    f.write(f'url = "{self.ep}/bench/{prefix}/{i}"\nupload-file = "{self.put_body}"\n'
                            f'output = "/dev/null"\n')

        def go():
            cmd = ["curl", "-s", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{AK}:{SK}", "--config", cfg]
            if par > 1:
                cmd += ["--parallel", "--parallel-immediate", "--parallel-max", str(par)]
            c = run(cmd, self.env)
            codes = c.out.decode().split()
            ok = sum(1 for x in codes if x in ("200", "201", "204"))
            if ok != n:
                raise RuntimeError(f"{n - ok} of {n} requests failed")
            if op == "PUT":
                self.check_small_puts(prefix, n)
            self.record(sc, f"curl --aws-sigv4{' --parallel' if par > 1 else ''}", rps=n / c.wall,
                        cpu_us_per_req=c.cpu * 1e6 / n, peak_rss_mib=c.rss_kib / 1024)
        self.attempt(sc, "curl", go)

    def rclone_small(self, sc, op, par):
        n = self.n_small
        flags = ["--transfers", str(par), "--checkers", str(par), "--ignore-checksum", "--no-check-dest",
                 "--s3-no-check-bucket", "--s3-no-head", "-q"] + self.rclone_quiet
        tool = f"rclone --transfers {par}"

        def go():
            if op == "GET":
                lst = os.path.join(self.work, "rclone-files")
                with open(lst, "w") as f:
                    f.write("".join(f"{i:04d}\n" for i in range(n)))
                dest = os.path.join(self.work, f"rclone-get-{par}")
                c = run(["rclone", "copy", "bench:bench/k", dest, "--files-from", lst, "--no-traverse"] + flags,
                        self.env)
                got = len(os.listdir(dest))
                shutil.rmtree(dest)
                if got != n:
                    raise RuntimeError(f"{n - got} of {n} files missing")
            else:
                prefix = f"put/rclone-{par}"
                c = run(["rclone", "copy", self.put_src, f"bench:bench/{prefix}"] + flags, self.env)
                self.check_small_puts(prefix, n)
            self.record(sc, tool, rps=n / c.wall, cpu_us_per_req=c.cpu * 1e6 / n, peak_rss_mib=c.rss_kib / 1024)
        self.attempt(sc, tool, go)

    def small(self, op):
        b3 = ["python3", os.path.join(BENCH, "peers", "boto3_bench.py")]
        js = ["node", os.path.join(BENCH, "peers", "js_bench.cjs")]
        bs3 = os.path.join(self.build, "bench/s3/bench_s3")
        bhttp = os.path.join(self.build, "bench/http/bench_http")
        key = "1k"
        for par in (1, 64):
            sc = f"{op} 1 KiB, {'sequential' if par == 1 else 'concurrent'}"
            # The limit first: wrk, 1 connection, and 16 (the figure) for the concurrent case.
            if op == "GET":
                conns = (1,) if par == 1 else (16, 64)
                for c in conns:
                    self.attempt(sc, f"wrk -c{c}", lambda c=c: self.record_wrk(sc, f"wrk -c{c}", self.wrk("/bench/1k", c)))
            else:
                lua = os.path.join(self.work, "put.lua")
                with open(lua, "w") as f:
                    f.write('wrk.method = "PUT"\nwrk.body = string.rep("x", 1024)\n')
                conns = (1,) if par == 1 else (16, 64)
                for c in conns:
                    self.attempt(sc, f"wrk -c{c}", lambda c=c: self.record_wrk(
                        sc, f"wrk -c{c}", self.wrk("/bench/put/wrk", c, lua)))
            nf = self.n_floe if par == 1 else self.n_floe * 2
            if op == "PUT":
                nf //= 2
            prefix = f"put/floe-{par}"
            self.lib_small(sc, "floe (s3::client)",
                           [bs3, op.lower(), self.ep, "bench", prefix if op == "PUT" else key, str(nf), str(par)],
                           put_prefix=prefix if op == "PUT" else None)
            if op == "GET":
                self.lib_small(sc, "floe http::client, unsigned", [bhttp, f"{self.ep}/bench/1k", str(nf), str(par)])
            self.curl_small(sc, op, par)
            for tool, cmd in (("boto3", b3), ("js-sdk-v3", js)):
                prefix = f"put/{tool}-{par}"
                self.lib_small(sc, tool if par == 1 else f"{tool} ({'threads' if tool == 'boto3' else 'promises'} {par})",
                               cmd + [op.lower(), self.ep, prefix if op == "PUT" else key, str(self.n_small), str(par)],
                               put_prefix=prefix if op == "PUT" else None, n=self.n_small)
            self.rclone_small(sc, op, par)

    def big_get(self):
        for dest_kind in ("/dev/null", "file"):
            sc = f"GET {self.big // MiB} MiB to {dest_kind}"
            dest = "/dev/null" if dest_kind == "/dev/null" else os.path.join(self.work, "big-dest")
            if dest_kind == "/dev/null":
                # The limit: wrk's steady rate on 1 MiB objects, one connection (on a
                # 1 GiB object wrk's window holds too few replies to be exact).
                self.attempt(sc, "wrk -c1 (1 MiB objects)", lambda: self.record(
                    sc, "wrk -c1 (1 MiB objects)", mb_per_s=self.wrk("/bench/1m", 1)[1] / 1e6))

            def check():
                if dest != "/dev/null":
                    size = os.path.getsize(dest)
                    os.unlink(dest)
                    if size != self.big:
                        raise RuntimeError(f"{size} bytes written, want {self.big}")

            def cli(tool, cmd, to_stdout, env=None):
                def go():
                    if to_stdout:
                        with open(dest, "wb") as out:
                            c = run(cmd, env or self.env, stdout=out)
                    else:
                        c = run(cmd, env or self.env)
                    check()
                    self.record(sc, tool, mb_per_s=self.big / c.wall / 1e6, cpu_s=c.cpu, peak_rss_mib=c.rss_kib / 1024)
                self.attempt(sc, tool, go)

            def lib(tool, cmd):
                def go():
                    c = run(cmd, self.env)
                    check()
                    self.record(sc, tool, mb_per_s=c.json()["mb_per_s"], cpu_s=c.cpu, peak_rss_mib=c.rss_kib / 1024)
                self.attempt(sc, tool, go)

            if dest_kind == "/dev/null":
                cli("floe cat", self.floe_args + ["cat", "s3://bench/1g"], True)
            else:
                cli("floe cp", self.floe_args + ["cp", "s3://bench/1g", dest], False)
                # Issue 31: the same with checksums on: the stand-in returns the
                # object's full-object CRC64NVME, which the GET verifies.
                cli("floe cp (checksums on)", self.floe_args + ["cp", "s3://bench/1g", dest], False, self.checksums_on())
            cli("curl --aws-sigv4", ["curl", "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{AK}:{SK}",
                                     "-o", dest, f"{self.ep}/bench/1g"], False)
            lib("boto3", ["python3", os.path.join(BENCH, "peers", "boto3_bench.py"), "big-get", self.ep, "1g", dest])
            lib("js-sdk-v3", ["node", os.path.join(BENCH, "peers", "js_bench.cjs"), "big-get", self.ep, "1g", dest])
            if dest_kind == "/dev/null":
                cli("rclone cat", ["rclone", "cat", "bench:bench", "--files-from", self.one_list("1g"),
                                   "--no-traverse", "--ignore-checksum", "-q"] + self.rclone_quiet, True)
            else:
                # (rclone copyto of one key lists its folder: --files-from avoids the listing)
                def rclone_file():
                    d = os.path.join(self.work, "rclone-big")
                    c = run(["rclone", "copy", "bench:bench", d, "--files-from", self.one_list("1g"), "--no-traverse",
                             "--ignore-checksum", "--no-check-dest", "-q"] + self.rclone_quiet, self.env)
                    os.rename(os.path.join(d, "1g"), dest)
                    check()
                    self.record(sc, "rclone copy", mb_per_s=self.big / c.wall / 1e6, cpu_s=c.cpu,
                                peak_rss_mib=c.rss_kib / 1024)
                self.attempt(sc, "rclone copy", rclone_file)

    def checksums_on(self):
        """The tools' environment with upload checksums and download checks on
        (every other row runs with both off, as the peers are asked to)."""
        env = dict(self.env)
        env["AWS_REQUEST_CHECKSUM_CALCULATION"] = "when_supported"
        env["AWS_RESPONSE_CHECKSUM_VALIDATION"] = "when_supported"
        return env

    def big_put(self):
        sc = f"PUT {self.big // MiB} MiB (multipart)"
        src = self.big_path

        def one(tool, cmd, key, lib=False, env=None):
            def go():
                self.free_big_put()
                c = run(cmd, env or self.env)
                pieces = self.check_big_put(key)
                mbs = c.json()["mb_per_s"] if lib else self.big / c.wall / 1e6
                self.record(sc, tool, mb_per_s=mbs, cpu_s=c.cpu, peak_rss_mib=c.rss_kib / 1024, pieces=pieces)
            self.attempt(sc, tool, go)

        # Issue 31: every part's CRC64NVME and the whole object's (the goal: at
        # least 0.97x of the row without). The two rows swap places every
        # other round: whichever ran first in a round was often the slower.
        pair = [lambda: one("floe cp", self.floe_args + ["cp", src, "s3://bench/up/floe"], "up/floe"),
                lambda: one("floe cp (checksums on)", self.floe_args + ["cp", src, "s3://bench/up/floe-sum"],
                            "up/floe-sum", env=self.checksums_on())]
        for row in (pair if self.round % 2 == 0 else pair[::-1]):
            row()
        one("curl -T (one PUT)", ["curl", "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{AK}:{SK}",
                                  "-T", src, "-o", "/dev/null", f"{self.ep}/bench/up/curl"], "up/curl")
        one("boto3 upload_file", ["python3", os.path.join(BENCH, "peers", "boto3_bench.py"), "big-put", self.ep, src,
                                  "up/boto3"], "up/boto3", lib=True)
        one("js-sdk-v3 lib-storage", ["node", os.path.join(BENCH, "peers", "js_bench.cjs"), "big-put", self.ep, src,
                                      "up/js"], "up/js", lib=True)
        one("rclone copyto", ["rclone", "copyto", src, "bench:bench/up/rclone", "--ignore-checksum", "-q",
                              "--s3-no-check-bucket", "--s3-no-head", "--s3-disable-checksum",
                              "--s3-chunk-size", "16M", "--s3-upload-concurrency", "4"] + self.rclone_quiet, "up/rclone")
        self.free_big_put()

    def memory(self):
        """Peak RSS of the floe CLI at a small and at the big object size, GET to
        /dev/null and PUT from a file (both sizes multipart for PUT): issue 9's
        "memory flat" target."""
        sc = "floe CLI peak RSS by object size"
        put_small = 96 * MiB  # above the 64 MiB multipart threshold: same path as the big PUT
        small_src = os.path.join(self.work, "mem-put-small")
        with open(small_src, "wb") as f:
            for _ in range(put_small // MiB):
                f.write(os.urandom(MiB))

        def one(tool, cmd, size, to_null):
            def go():
                if to_null:
                    with open("/dev/null", "wb") as out:
                        c = run(cmd, self.env, stdout=out)
                else:
                    c = run(cmd, self.env)
                if c.rc != 0:
                    raise RuntimeError(f"exit {c.rc}: {c.err[-300:]}")
                self.record(sc, tool, peak_rss_mib=c.rss_kib / 1024, cpu_s=c.cpu, size_mib=size // MiB)
            self.attempt(sc, tool, go)

        big = self.big
        one("floe cat, 1 MiB", self.floe_args + ["cat", "s3://bench/1m"], MiB, True)
        one(f"floe cat, {big // MiB} MiB", self.floe_args + ["cat", "s3://bench/1g"], big, True)
        one(f"floe cp up, {put_small // MiB} MiB (multipart)",
            self.floe_args + ["cp", small_src, "s3://bench/up/mem-small"], put_small, False)
        one(f"floe cp up, {big // MiB} MiB (multipart)",
            self.floe_args + ["cp", self.big_path, "s3://bench/up/mem-big"], big, False)
        os.unlink(small_src)

    def one_list(self, key):
        p = os.path.join(self.work, f"list-{key}")
        with open(p, "w") as f:
            f.write(key + "\n")
        return p

    def first_byte(self):
        sc = "start to first byte, GET 1 KiB"
        runs = 5 if self.quick else 15
        tools = [
            ("floe cat", self.floe_args + ["cat", "s3://bench/1k"]),
            ("curl --aws-sigv4", ["curl", "-s", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{AK}:{SK}",
                                  f"{self.ep}/bench/1k"]),
            # (rclone cat of one key lists its folder: --files-from avoids the listing)
            ("rclone cat", ["rclone", "cat", "bench:bench", "--files-from", self.one_list("1k"), "--no-traverse", "-q"]
             + self.rclone_quiet),
            ("aws s3 cp -", ["aws", "--endpoint-url", self.ep, "s3", "cp", "s3://bench/1k", "-"]),
        ]
        for tool, cmd in tools:
            def go(tool=tool, cmd=cmd):
                first_byte_ms(cmd, self.env)  # page cache, pyc files
                ms, rss = zip(*(first_byte_ms(cmd, self.env) for _ in range(runs)))
                self.record(sc, tool, ms=statistics.median(ms), peak_rss_mib=max(rss) / 1024, runs=runs)
            self.attempt(sc, tool, go)

    def healing(self):
        """First 403 to healed success through the test proxy in front of moto."""
        sc = "healing after revocation"
        # It runs wherever the program is built: what the checkout is (git,
        # a tarball, a copy) has no say.
        exe = os.path.join(self.build, "bench/s3/bench_heal")
        if not os.path.exists(exe):
            self.record(sc, "floe", error=f"{exe} is not built (ninja -C {self.build} bench/s3/bench_heal)")
            return

        def go():
            procs = []
            try:
                env = dict(self.env)
                env["AWS_EC2_METADATA_DISABLED"] = "true"
                mport = stores.start_moto(procs, self.work, env, "moto.log")
                info = stores.start_proxy(procs, self.work, env, mport, "proxy",
                                          ["--log", os.path.join(self.work, "proxy-req.log")])
                c = run([exe, f"http://127.0.0.1:{info['port']}", f"http://127.0.0.1:{info['control_port']}",
                         "5" if self.quick else "11"], env, work=self.work)
                j = c.json()
                self.record(sc, "floe", ms=j["after_sts_reply_ms"], first_403_to_success_ms=j["first_403_to_success_ms"],
                            sts_ms=j["sts_ms"], rounds=j["rounds"])
            finally:
                stores.stop_all(procs)
        self.attempt(sc, "floe", go)

    def ledger(self):
        """The ledger's commit time per batch of 10 entries and the process's
        memory, in ledgers of 100 and of 100,000 entries (bench/ledger/), on a
        moto of its own (one writer: no proxy needed)."""
        sc = "ledger: commits of 10 entries"
        exe = os.path.join(self.build, "bench/ledger/bench_ledger")
        batches = 200 if self.quick else 400
        procs = []
        try:
            try:
                mport = stores.start_moto(procs, self.work, self.env, "moto-ledger.log")
            except RuntimeError as e:
                self.record(sc, "ledger of 100", error=str(e))
                return
            for size, tool in ((100, "ledger of 100"), (100000, "ledger of 100,000")):
                def go(size=size, tool=tool):
                    c = run([exe, f"http://127.0.0.1:{mport}", str(size), str(batches)], self.env, work=self.work)
                    j = c.json()
                    self.record(sc, tool, ms_per_batch=j["ms_per_batch"], p50_ms=j["p50_ms"], p90_ms=j["p90_ms"],
                                checkpoints=j["checkpoints"], batches=j["batches"], rss_mib=j["rss_mib"],
                                peak_rss_mib=j["peak_rss_mib"], set_mib=j["set_mib"])
                self.attempt(sc, tool, go)
        finally:
            stores.stop_all(procs)

    def steps(self):
        return {"sign": self.signing, "get": lambda: self.small("GET"), "put": lambda: self.small("PUT"),
                "big-get": self.big_get, "big-put": self.big_put, "first-byte": self.first_byte,
                "memory": self.memory, "list-memory": lambda: list_memory.scenario(self), "heal": self.healing,
                "static": lambda: static_binary.scenario(self, first_byte_ms, AK, SK),
                "ledger": self.ledger,

                "sync": lambda: sync_scenario.run(self, run),
                "watch": lambda: watch_scenario.run(self, run)}

    def run(self, names):
        steps = self.steps()
        for rnd in range(self.a.rounds):
            self.round = rnd
            for name in names:
                if rnd == 0 or name in ROUNDED:
                    steps[name]()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--npm-dir", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated: " + ",".join(SCENARIOS))
    ap.add_argument("--rounds", type=int, default=0,
                    help="rounds of the signing, GET and PUT scenarios; figures are the median over them (default 3, 1 with --quick)")
    a = ap.parse_args()
    if a.rounds <= 0:
        a.rounds = 1 if a.quick else 3
    names = a.only.split(",") if a.only else list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        ap.error(f"--only: unknown scenario {', '.join(unknown)} (known: {', '.join(SCENARIOS)})")
    h = Harness(a)
    t0 = time.time()
    try:
        h.setup()
        h.run(names)
    finally:
        h.stop()
    h.results["seconds"] = time.time() - t0
    h.results["machine"] = {"cpus": os.cpu_count(), "load_avg_at_end": os.getloadavg()}
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(h.results, f, indent=1)
    sys.path.insert(0, HERE)
    import report
    print(report.markdown(h.results))


if __name__ == "__main__":
    main()
