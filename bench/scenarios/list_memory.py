"""bench/run's "list-memory" scenario: the peak RSS of `floe ls --recursive`
as the number of keys grows, against a scripted loopback server that
generates ListObjectsV2 pages on the fly (tests/support/scripted_s3.py;
moto is far too slow for a million keys). The listing is read a page at a
time (s3::list_pager), so memory stays flat: issue 23's goal is 16 MiB for
1,000,000 keys. The output goes to /dev/null; the keys are counted from
the server's side (every page was asked for).

Run alone, without the rest of the benchmark:

    python3 bench/scenarios/list_memory.py build-bench/src/cli/floe [--keys 1000,1000000]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(HERE, "..", "..", "tests", "support")
SCENARIO = "floe CLI peak RSS by object size"  # a row of the memory table (harness.memory)


def start_server(keys):
    p = subprocess.Popen([sys.executable, os.path.join(SUPPORT, "scripted_s3.py"), "pages", "--keys", str(keys)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        p.kill()
        raise RuntimeError("scripted_s3.py did not start: " + p.stderr.read()[-500:])
    return p, json.loads(line)["port"]


def measure(floe, keys, work):
    """One run: peak RSS (KiB, GNU time), CPU seconds and wall seconds."""
    server, port = start_server(keys)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update({"AWS_ACCESS_KEY_ID": "AKIDBENCH", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1",
                    "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent",
                    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"})
        fd, ru = tempfile.mkstemp(prefix="rusage-", dir=work)
        os.close(fd)
        cmd = ["/usr/bin/time", "-f", "%U %S %M", "-o", ru, floe, "--endpoint-url", f"http://127.0.0.1:{port}",
               "--path-style", "ls", "--recursive", "s3://bench/"]
        t0 = time.perf_counter()
        with open(os.devnull, "wb") as null:
            r = subprocess.run(cmd, env=env, stdout=null, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise RuntimeError(f"floe ls failed ({r.returncode}): {r.stderr.decode(errors='replace')[-500:]}")
        with open(ru) as f:
            fields = [ln for ln in f.read().split("\n") if ln.strip()][-1].split()
        os.unlink(ru)
        return {"peak_rss_mib": int(fields[2]) / 1024, "cpu_s": float(fields[0]) + float(fields[1]),
                "wall_s": wall, "keys": keys}
    finally:
        server.terminate()
        server.wait()


def scenario(h, sizes=(1000, 1_000_000)):
    """For bench/scenarios/harness.py: one row per size in SCENARIO."""
    for keys in sizes:
        tool = f"floe ls --recursive, {keys:,} keys"

        def go(keys=keys, tool=tool):
            h.record(SCENARIO, tool, **measure(h.floe, keys, h.work))
        h.attempt(SCENARIO, tool, go)


def growth(rows):
    """Peak RSS at the most keys minus at the fewest (MiB), and the former."""
    got = sorted((f["keys"], f["peak_rss_mib"]) for f in rows.values() if "error" not in f and "keys" in f)
    if len(got) < 2:
        return None, None
    return got[-1][1] - got[0][1], got[-1][1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("--keys", default="1000,1000000")
    a = ap.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory() as work:
        for keys in (int(k) for k in a.keys.split(",")):
            rows[f"floe ls --recursive, {keys:,} keys"] = f = measure(os.path.abspath(a.floe), keys, work)
            print(f"| floe ls --recursive, {keys:,} keys | {f['peak_rss_mib']:.1f} | {f['cpu_s']:.2f} | "
                  f"{f['wall_s']:.1f} |", flush=True)
    g, top = growth(rows)
    if g is not None:
        print(f"growth {g:+.1f} MiB; {top:.1f} MiB at the most keys (goal ≤ 16 MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
