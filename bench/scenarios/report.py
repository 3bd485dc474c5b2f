"""The Markdown report of one bench/run: a table per scenario with absolute
figures and same-run ratios, then issue 9's targets checked against them.

  python3 bench/scenarios/report.py build-bench/results.json   (re-print a saved run)
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import list_memory  # noqa: E402
import static_binary  # noqa: E402

FLOE_LIB = "floe (s3::client)"


def _num(v, digits=0):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if digits == 0:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def _ratio(a, b):
    if not a or not b:
        return "–"
    return f"{a / b:.2f}"


def _err(tool, fig):
    return f"| {tool} | failed: {fig['error']} |"


def _small(name, rows):
    ref_tool = "wrk -c1" if "sequential" in name else "wrk -c16"
    ref = rows.get(ref_tool, {}).get("rps")
    floe = rows.get(FLOE_LIB, {}).get("rps")
    out = [f"### {name}", "",
           f"| tool | req/s | ÷ {ref_tool} | floe ÷ tool | CPU µs/req | peak RSS MiB | allocs/req |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        out.append(f"| {tool} | {_num(f['rps'])} | {_ratio(f['rps'], ref)} | "
                   f"{_ratio(floe, f['rps']) if not tool.startswith('wrk') else '–'} | "
                   f"{_num(f.get('cpu_us_per_req'), 1)} | {_num(f.get('peak_rss_mib'), 1)} | "
                   f"{_num(f.get('allocs_per_req'), 1)} |")
    return out


def _big(name, rows):
    ref_tool = next((t for t in rows if t.startswith("wrk")), "wrk")
    ref = rows.get(ref_tool, {}).get("mb_per_s")
    floe = next((f.get("mb_per_s") for t, f in rows.items() if t.startswith("floe")), None)
    out = [f"### {name}", "", f"| tool | MB/s | ÷ {ref_tool} | floe ÷ tool | CPU s | peak RSS MiB |",
           "|---|---:|---:|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        out.append(f"| {tool} | {_num(f['mb_per_s'])} | {_ratio(f['mb_per_s'], ref)} | "
                   f"{_ratio(floe, f['mb_per_s']) if not tool.startswith('wrk') else '–'} | "
                   f"{_num(f.get('cpu_s'), 2)} | {_num(f.get('peak_rss_mib'), 1)} |")
    return out


def _ledger(name, rows):
    out = ["### The ledger: commits of 10 entries (one writer, moto), checkpoints amortised", "",
           "| ledger | ms/batch (mean) | p50 ms | p90 ms | checkpoints | RSS MiB | peak RSS MiB | entry set MiB |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        out.append(f"| {tool} | {_num(f['ms_per_batch'], 2)} | {_num(f['p50_ms'], 2)} | {_num(f['p90_ms'], 2)} | "
                   f"{_num(f['checkpoints'])} in {_num(f['batches'])} | {_num(f['rss_mib'], 1)} | "
                   f"{_num(f['peak_rss_mib'], 1)} | {_num(f['set_mib'], 1)} |")
    return out


def _sign(name, rows):
    floe = rows.get("floe", {}).get("us_per_sig")
    out = [f"### SigV4 signing, S3 GET, warm key cache", "", "| signer | µs/signature | tool ÷ floe | allocs/signature |",
           "|---|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        out.append(f"| {tool} | {_num(f['us_per_sig'], 2)} | {_ratio(f['us_per_sig'], floe)} | "
                   f"{_num(f.get('allocs_per_sig'), 1)} |")
    return out


def _first(name, rows):
    floe = rows.get("floe cat", {}).get("ms")
    out = [f"### Process start to first byte, GET 1 KiB (median)", "", "| tool | ms | tool ÷ floe | peak RSS MiB |",
           "|---|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        out.append(f"| {tool} | {_num(f['ms'], 1)} | {_ratio(f['ms'], floe)} | {_num(f.get('peak_rss_mib'), 1)} |")
    return out


SYNC_PHASES = (("initial", "up to an empty prefix"), ("unchanged", "again, nothing changed"),
               ("changed", "again, 1% changed"))
SYNC_PEERS = ("aws s3 sync", "rclone sync")


def _sync(name, rows):
    floe = rows.get("floe sync", {})
    out = [f"### {name} (moto behind the test proxy, which counts the requests)", "",
           "| tool | phase | wall s | tool ÷ floe | requests | listing | HEAD | PUT | other | CPU s | peak RSS MiB |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        for phase, label in SYNC_PHASES:
            g = lambda k: f.get(f"{phase}_{k}")
            ratio = _ratio(g("s"), floe.get(f"{phase}_s")) if tool != "floe sync" else "–"
            out.append(f"| {tool} | {label} | {_num(g('s'), 2)} | {ratio} | {_num(g('requests'))} | "
                       f"{_num(g('listing'))} | {_num(g('head'))} | {_num(g('put'))} | {_num(g('other'))} | "
                       f"{_num(g('cpu_s'), 2)} | {_num(g('rss_mib'), 1)} |")
    return out


def _watch(name, rows):
    boto = rows.get("boto3 consumer", {}).get("cpu_ms_per_object")
    out = [f"### {name} (moto behind the test proxy)", "",
           "| consumer | objects | objects/s | CPU ms/object | CPU ÷ boto3's | notes |",
           "|---|---:|---:|---:|---:|---|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(_err(tool, f))
            continue
        note = ""
        if "healthy_throughput_vs_clean" in f:
            note = f"healthy objects: {f['healthy_throughput_vs_clean']:.2f} × the run without failures"
        if "exactly_once" in f:
            note = (f"ledger {f['ledger_entries']:.0f} entries, committed {f['committed_sum']:.0f}: "
                    + ("exactly once" if f["exactly_once"] else "**not exactly once**"))
        out.append(f"| {tool} | {_num(f['objects'])} | {_num(f['objects_per_s'], 1)} | {_num(f['cpu_ms_per_object'], 3)} | "
                   f"{_ratio(f['cpu_ms_per_object'], boto) if tool != 'boto3 consumer' else '–'} | {note} |")
    return out


def watch_targets(r):
    """Issue 33's: CPU per object ≤ 1/5 of boto3's; healthy throughput with 10%
    failing within 5% of the clean run; 3 replicas register each object once."""
    name = next((k for k in r["scenarios"] if k.startswith("watch:")), None)
    if not name:
        return []
    rows = r["scenarios"][name]
    f, b = rows.get("floe watch", {}), rows.get("boto3 consumer", {})
    p, x = rows.get("floe watch, 10% failing", {}), rows.get("floe watch × 3 replicas", {})
    out = []
    mine, theirs = f.get("cpu_ms_per_object"), b.get("cpu_ms_per_object")
    if mine and theirs:
        out.append(("watch: CPU per object ≤ 1/5 of boto3's", f"{mine:.3f} ms vs {theirs:.3f} ms ({mine / theirs:.2f}×)",
                    "met" if mine * 5 <= theirs else "**missed**"))
    else:
        out.append(("watch: CPU per object ≤ 1/5 of boto3's", "not measured", "–"))
    v = p.get("healthy_throughput_vs_clean")
    out.append(("watch: 10% failing costs the healthy objects < 5% of their throughput",
                f"{v:.2f}× the clean run" if v else "not measured", "–" if v is None else ("met" if v >= 0.95 else "**missed**")))
    e = x.get("exactly_once")
    out.append(("watch: 3 replicas register each object exactly once",
                "not measured" if e is None else f"{x.get('ledger_entries', 0):.0f} entries of {x.get('objects', 0):.0f}",
                "–" if e is None else ("met" if e else "**missed**")))
    return out


def sync_targets(r):
    """Issue 22's: the unchanged sync sends only listings; every phase beats both peers."""
    name = next((k for k in r["scenarios"] if k.startswith("sync of")), None)
    if not name:
        return []
    rows = r["scenarios"][name]
    f = rows.get("floe sync", {})
    out = []
    req, lst = f.get("unchanged_requests"), f.get("unchanged_listing")
    if req is None:
        out.append(("sync, nothing changed: only listing requests", "not measured", "–"))
    else:
        out.append(("sync, nothing changed: only listing requests", f"{req:.0f} requests, {lst:.0f} of them listings",
                    "met" if req == lst else "**missed**"))
    for phase, label in SYNC_PHASES:
        mine = f.get(f"{phase}_s")
        theirs = [(p, rows.get(p, {}).get(f"{phase}_s")) for p in SYNC_PEERS]
        shown = ", ".join(f"{p} {t:.2f} s" for p, t in theirs if t) or "peers failed"
        if mine is None or not all(t for _, t in theirs):
            out.append((f"sync {label}: faster than aws s3 sync and rclone sync", "not measured", "–"))
            continue
        ok = all(mine < t for _, t in theirs)
        out.append((f"sync {label}: faster than aws s3 sync and rclone sync", f"floe {mine:.2f} s; {shown}",
                    "met" if ok else "**missed**"))
    return out


def _memory(name, rows):
    out = [f"### {name}", "", "| run | peak RSS MiB | CPU s |", "|---|---:|---:|"]
    for tool, f in rows.items():
        out.append(_err(tool, f) if "error" in f else
                   f"| {tool} | {_num(f.get('peak_rss_mib'), 1)} | {_num(f.get('cpu_s'), 2)} |")
    return out


def memory_growth(rows):
    """(GET growth, PUT growth) in MiB: peak RSS at the largest size minus at the smallest."""
    out = []
    for prefix in ("floe cat", "floe cp up"):
        got = sorted((f["size_mib"], f["peak_rss_mib"]) for t, f in rows.items()
                     if t.startswith(prefix) and "error" not in f and "size_mib" in f)
        out.append(got[-1][1] - got[0][1] if len(got) >= 2 else None)
    return out


def _get(r, sc, tool, key):
    return r["scenarios"].get(sc, {}).get(tool, {}).get(key)


def targets(r):
    """Issue 9's targets, each with the same-run figure and the verdict."""
    s = r["scenarios"]
    big_get = next((k for k in s if k.startswith("GET") and k.endswith("/dev/null")), None)
    big_put = next((k for k in s if k.startswith("PUT") and "multipart" in k), None)
    rows = []

    def check(what, value, ok, shown):
        if value is None:
            rows.append((what, "not measured", "–"))
        else:
            rows.append((what, shown, "met" if ok else "**missed**"))

    sig = _get(r, "sign", "floe", "us_per_sig")
    check("signing ≤ 1.5 µs", sig, sig is not None and sig <= 1.5, f"{sig:.2f} µs" if sig else "")
    sa = _get(r, "sign", "floe", "allocs_per_sig")
    check("signing: 0 allocations (warm)", sa, sa == 0, f"{sa:.1f}" if sa is not None else "")

    seq = "GET 1 KiB, sequential"
    f1 = _get(r, seq, FLOE_LIB, "rps")
    for peer, want, label in (("wrk -c1", 0.8, "≥ 0.80 × wrk (1 connection)"),
                              ("curl --aws-sigv4", 2.5, "≥ 2.5 × curl"),
                              ("boto3", 10, "≥ 10 × boto3"),
                              ("js-sdk-v3", 10, "≥ 10 × JS SDK v3")):
        p = _get(r, seq, peer, "rps")
        v = f1 / p if f1 and p else None
        check(f"sequential GET {label}", v, v is not None and v >= want, f"{v:.2f}×" if v else "")
    def with_wrk(cpu, sc, wrk_tool):
        # wrk's own CPU per request in the same run: the kernel's share and a
        # minimal client's, what this machine charges per request today.
        w = _get(r, sc, wrk_tool, "cpu_us_per_req")
        return f"{cpu:.1f} µs (wrk {wrk_tool[4:]} itself: {w:.1f} µs)" if w else f"{cpu:.1f} µs"

    cpu = _get(r, seq, FLOE_LIB, "cpu_us_per_req")
    check("sequential GET: CPU ≤ 30 µs/request", cpu, cpu is not None and cpu <= 30,
          with_wrk(cpu, seq, "wrk -c1") if cpu else "")
    al = _get(r, seq, FLOE_LIB, "allocs_per_req")
    check("allocations per warm signed GET ≤ 8", al, al is not None and al <= 8, f"{al:.1f}" if al else "")

    con = "GET 1 KiB, concurrent"
    f64 = _get(r, con, FLOE_LIB, "rps")
    w16 = _get(r, con, "wrk -c16", "rps")
    v = f64 / w16 if f64 and w16 else None
    check("64 in flight ≥ 0.70 × wrk (16 connections)", v, v is not None and v >= 0.7, f"{v:.2f}×" if v else "")
    cpu = _get(r, con, FLOE_LIB, "cpu_us_per_req")
    check("64 in flight: CPU ≤ 20 µs/request", cpu, cpu is not None and cpu <= 20,
          with_wrk(cpu, con, "wrk -c16") if cpu else "")

    if big_get:
        g = _get(r, big_get, "floe cat", "mb_per_s")
        w = next((f.get("mb_per_s") for t, f in s[big_get].items() if t.startswith("wrk")), None)
        v = g / w if g and w else None
        check("big GET ≥ 0.90 × wrk MB/s", v, v is not None and v >= 0.9, f"{v:.2f}×" if v else "")
        if big_put:
            p = _get(r, big_put, "floe cp", "mb_per_s")
            v = p / g if p and g else None
            check("big PUT (multipart) ≥ 0.80 × floe's GET MB/s", v, v is not None and v >= 0.8,
                  f"{v:.2f}×" if v else "")
    rss = [f["peak_rss_mib"] for sc, rows_ in s.items() for t, f in rows_.items()
           if t.startswith("floe ") and t != FLOE_LIB and "peak_rss_mib" in f and not t.startswith("floe http")]
    m = max(rss) if rss else None
    check("CLI peak RSS ≤ 16 MiB (every CLI row)", m, m is not None and m <= 16, f"max {m:.1f} MiB" if m else "")
    lst = s.get(list_memory.SCENARIO)
    if lst:
        g, top = list_memory.growth(lst)
        ok = g is not None and top <= 16 and g <= 2
        check("streamed listing: ls --recursive of 1,000,000 keys ≤ 16 MiB, flat (≤ 2 MiB over 1,000 keys)", top, ok,
              f"{top:.1f} MiB, {g:+.1f} MiB" if g is not None else "")
    mem = s.get("floe CLI peak RSS by object size")
    if mem:
        g, p = memory_growth(mem)
        ok = g is not None and p is not None and g <= 2 and p <= 2
        check("memory flat: CLI peak RSS grows ≤ 2 MiB from the small to the big object (GET, PUT)", g, ok,
              f"GET {g:+.1f} MiB, PUT {p:+.1f} MiB" if g is not None and p is not None else "")
    fb = "start to first byte, GET 1 KiB"
    a, b = _get(r, fb, "floe cat", "ms"), _get(r, fb, "curl --aws-sigv4", "ms")
    v = a / b if a and b else None
    check("CLI start to first byte ≤ curl's", v, v is not None and v <= 1.0, f"{a:.1f} ms vs {b:.1f} ms" if v else "")
    heal = s.get("healing after revocation", {}).get("floe", {})
    if "pending" in heal:
        rows.append(("healing: first healed success ≤ 100 ms after the STS reply", "pending", heal["pending"]))
    else:
        ms = heal.get("ms")
        check("healing: first healed success ≤ 100 ms after the STS reply", ms, ms is not None and ms <= 100,
              f"{ms:.1f} ms" if ms else "")
    led = s.get("ledger: commits of 10 entries")
    if led:
        small, large = led.get("ledger of 100", {}), led.get("ledger of 100,000", {})
        a, b = small.get("ms_per_batch"), large.get("ms_per_batch")
        v = b / a if a and b else None
        check("ledger (issue 19): commit time per batch at 100,000 entries ≤ 2 × at 100", v,
              v is not None and v <= 2, f"{b:.2f} ms vs {a:.2f} ms ({v:.2f}×)" if v else "")
        m = large.get("peak_rss_mib")
        check("ledger (issue 19): process RSS ≤ 64 MiB at 100,000 entries", m, m is not None and m <= 64,
              f"peak {m:.1f} MiB" if m else "")
    rows += sync_targets(r)
    rows += watch_targets(r)
    out = ["### Targets (issues 9, 19, 22 and 33), same-run ratios", "", "| target | this run | verdict |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return out


def markdown(r):
    out = []
    if r.get("rounds", 1) > 1:
        out += [f"Signing, GET and PUT figures (small and big) are medians over {r['rounds']} rounds, each round "
                "running every tool in turn (floe's signing figure in a round is itself the median of 5 "
                "repetitions).", ""]
    for name, rows in r["scenarios"].items():
        if name == "sign":
            out += _sign(name, rows)
        elif "1 KiB," in name and not name.startswith("start"):
            out += _small(name, rows)
        elif name.startswith("start"):
            out += _first(name, rows)
        elif name.startswith("static floe"):
            out += static_binary.report(rows)
        elif name.startswith("floe CLI peak RSS"):
            out += _memory(name, rows)
        elif name.startswith("ledger"):
            out += _ledger(name, rows)
        elif name.startswith("watch:"):
            out += _watch(name, rows)
        elif name.startswith("sync of"):
            out += _sync(name, rows)
        elif name.startswith("healing"):
            f = rows.get("floe", {})
            out += ["### Healing after a credential revocation (web identity, test proxy in front of moto)", ""]
            if "pending" in f:
                out.append(f"pending: {f['pending']}")
            elif "error" in f:
                out.append(f"failed: {f['error']}")
            else:
                out += ["| first 403 to healed success | STS reply to healed success | the STS call | rounds |",
                        "|---:|---:|---:|---:|",
                        f"| {f['first_403_to_success_ms']:.1f} ms | {f['ms']:.1f} ms | {f['sts_ms']:.1f} ms | "
                        f"{f['rounds']} (medians) |"]
        else:
            out += _big(name, rows)
        out.append("")
    out += targets(r)
    out += ["", "### Versions", ""]
    out += [f"- {k}: {v}" for k, v in r.get("versions", {}).items()]
    load = r.get("machine", {}).get("load_avg_at_end")
    rounds = r.get("rounds", 1)
    out += ["", f"Run took {r.get('seconds', 0):.0f} s{' (--quick)' if r.get('quick') else ''}"
            + (f", {rounds} rounds" if rounds > 1 else "") + "; "
            f"{r.get('machine', {}).get('cpus', '?')} CPUs"
            + (f", load average at the end {load[0]:.1f}" if load else "") + "."]
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown(json.load(open(sys.argv[1]))))
