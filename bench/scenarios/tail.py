#!/usr/bin/env python3
"""The tail benchmark (issue 32): sequential 1 KiB GETs through the project's
test proxy in front of moto, one row per condition, floe beside its peers in
the same run: p50, p99, p99.9 and the extra requests the proxy saw.

  python3 bench/scenarios/tail.py BUILD_DIR [N]     (N GETs per tool and row; 1000)

Rows (ROWS below, one entry each): quiet; 1% of replies held 2 s before
their first byte (the proxy's `delay` with a seeded `chance` trigger); one of
four addresses accepting connections and never answering (the proxy listens
on 127.0.0.1-4, `--addresses`; 127.0.0.3 in `blackhole` mode).

floe runs with the library's defaults (hedged reads on): bench/s3/bench_tail,
and again with hedged reads off (FLOE_TAIL_HEDGE=off, the row "floe-no-hedge":
what the defaults cost against the same library without hedging),
its endpoint's name `localhost` resolving to the four addresses in every row
(`resolve_overrides`; quiet and held rows have all four serving). boto3 with
its own defaults but path style (bench/peers/boto3_bench.py tail), and the JS
SDK likewise (js_bench.cjs tail) when FLOE_BENCH_NPM names the folder
bench/run installs it in, both at 127.0.0.1. The dead-address row is floe's
only: neither peer can be given four addresses for one name without editing
/etc/hosts, and with a rotating resolver each connection either meets the
dead front-end (its read timeout, 60 s) or never does.
Extra requests: what the proxy forwarded beyond N (and the peers' one
warm-up GET), as a share of N (a first rule that never fires counts every
request: its `matched`); blackholed requests are not forwarded, so not
counted.
FLOE_TAIL_TOOLS=floe,boto3 runs only those tools, FLOE_TAIL_ROWS=quiet,held
only the rows whose name contains one of those words. FLOE_TAIL_NO_HEDGE_FIRST=1
runs floe-no-hedge before floe in each row (the first tool of a row has shown
more CPU per GET: compare the two in both orders). bench_tail names its GETs
slower than 250 ms on stderr.
Loopback only; credentials are dummies (moto checks none).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import stores  # noqa: E402

BUCKET = "tail"
KEY = "one-kib"

ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"]

# (name, rule or None, address modes or None, peers too): the condition each row measures.
ROWS = [
    ("quiet", None, None, True),
    ("1% of first bytes held 2 s",
     {"match": {"method": "GET"}, "trigger": {"chance": 0.01, "seed": 32}, "action": {"type": "delay", "ms": 2000}},
     None, True),
    ("one of four addresses dead", None, {"127.0.0.3": "blackhole"}, False),
]


def control(base, method, path, body=None):
    import urllib.request
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read()
    return json.loads(text) if text else {}


def tools(build, port, n, peers):
    """(tool, command, extra environment) for one row."""
    floe = [os.path.join(build, "bench/s3/bench_tail"), f"http://localhost:{port}", BUCKET, KEY, str(n),
            ",".join(ADDRESSES)]
    pair = [("floe", floe, {}), ("floe-no-hedge", floe, {"FLOE_TAIL_HEDGE": "off"})]
    if os.environ.get("FLOE_TAIL_NO_HEDGE_FIRST"):  # a row's first tool pays more CPU: measure both orders
        pair.reverse()
    yield from pair
    if not peers:
        return
    endpoint = f"http://127.0.0.1:{port}"
    yield "boto3", [sys.executable, os.path.join(REPO, "bench/peers/boto3_bench.py"), "tail", endpoint, BUCKET, KEY,
                    str(n)], {}
    if os.environ.get("FLOE_BENCH_NPM"):  # the SDK bench/run installs there
        yield "js-sdk-v3", ["node", os.path.join(REPO, "bench/peers/js_bench.cjs"), "tail", endpoint, BUCKET, KEY,
                            str(n)], {}


def main(argv):
    build = argv[0] if argv else "build-bench"
    n = int(argv[1]) if len(argv) > 1 else 1000
    env = dict(os.environ, AWS_EC2_METADATA_DISABLED="true", AWS_ACCESS_KEY_ID="AKIATAILBENCH0000000",
               AWS_SECRET_ACCESS_KEY="tail-bench-secret", AWS_REGION="us-east-1", NO_PROXY="*")
    procs = []
    results = []
    with tempfile.TemporaryDirectory() as work:
        try:
            mport = stores.start_moto(procs, work, env, "moto.log")
            info = stores.start_proxy(procs, work, env, mport, "proxy", ("--addresses", ",".join(ADDRESSES[1:])))
            ctl = f"http://127.0.0.1:{info['control_port']}"
            import boto3
            s3 = boto3.session.Session().client("s3", endpoint_url=f"http://127.0.0.1:{mport}", region_name="us-east-1",
                                                aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
                                                aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"])
            s3.create_bucket(Bucket=BUCKET)
            s3.put_object(Bucket=BUCKET, Key=KEY, Body=bytes((97 + i % 26) for i in range(1024)))
            only = [t for t in os.environ.get("FLOE_TAIL_TOOLS", "").split(",") if t]
            rows = [w for w in os.environ.get("FLOE_TAIL_ROWS", "").split(",") if w]
            for row, rule, modes, peers in ROWS:
                if rows and not any(w in row for w in rows):
                    continue
                for tool, cmd, extra in tools(build, info["port"], n, peers):
                    if only and tool not in only:
                        continue
                    control(ctl, "POST", "/reset")
                    if modes:
                        control(ctl, "POST", "/addresses", modes)
                    counter = control(ctl, "POST", "/rules", {"match": {"method": "GET"}, "trigger": {"first": 0},
                                                             "action": {"type": "delay", "ms": 0}})["id"]
                    if rule:
                        control(ctl, "POST", "/rules", rule)
                    out = subprocess.run(cmd, env=dict(env, **extra), capture_output=True, text=True, check=False)
                    if out.returncode != 0:
                        results.append({"row": row, "tool": tool, "error": out.stderr.strip()[-300:]})
                        continue
                    fig = json.loads(out.stdout.strip().splitlines()[-1])
                    for line in out.stderr.splitlines():  # bench_tail names its slow GETs
                        print(f"{row}: {line}", file=sys.stderr)
                    seen = next(r for r in control(ctl, "GET", "/rules") if r["id"] == counter)["matched"]
                    warm = 0 if tool.startswith("floe") else 1  # the peers' warm-up GET
                    fig["extra_requests_pct"] = 100.0 * (seen - n - warm) / n
                    results.append({"row": row, "tool": tool, **fig})
        finally:
            stores.stop_all(procs)
    print("| row | tool | p50 ms | p99 ms | p99.9 ms | p99 after 100 | failures | extra requests | hedges sent/won "
          "| CPU µs/GET |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if "error" in r:
            print(f"| {r['row']} | {r['tool']} | error: {r['error']} | | | | | | | |")
            continue
        after = f"{r['p99_after_100_ms']:.1f}" if "p99_after_100_ms" in r else ""
        hedges = f"{r['hedges_sent']}/{r['hedges_won']}" if "hedges_sent" in r else ""
        print(f"| {r['row']} | {r['tool']} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['p999_ms']:.1f} | {after} | "
              f"{r.get('failures', 0)} | {r['extra_requests_pct']:.1f}% | {hedges} | {r.get('cpu_us_per_get', 0):.0f} |")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
