"""bench/run's "static" scenario: the fully static floe (scripts/build-static)
beside the default floe build and curl: stripped size on disk, with the
shared libraries each loads, and start-up time.

  - size: the executable stripped of symbols (a stripped copy is measured;
    the build keeps its symbols), and the stripped shared libraries `ldd`
    lists for it (none for the static floe);
  - start-up: `TOOL --version`, process start to exit, median of 51 runs
    after 3 unmeasured ones; and process start to the first byte of a 1 KiB
    GET from the stand-in, median of 15 runs (first_byte_ms, as in the
    "first byte" scenario).
"""
import os
import shutil
import statistics
import subprocess
import tempfile
import time

MiB = 1 << 20


def build_static(repo):
    """Builds (or finds up to date) the static floe; its path is the script's
    last line. FLOE_BENCH_STATIC_BIN names a binary built already instead."""
    given = os.environ.get("FLOE_BENCH_STATIC_BIN")
    if given:
        return os.path.abspath(given)
    r = subprocess.run([os.path.join(repo, "scripts", "build-static")], cwd=repo,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("scripts/build-static failed: " + r.stderr.strip()[-1500:])
    return r.stdout.strip().splitlines()[-1]


def stripped_size(path, work):
    with tempfile.NamedTemporaryFile(dir=work) as tmp:
        subprocess.run(["strip", "-o", tmp.name, path], check=True)
        return os.path.getsize(tmp.name)


def shared_libraries(path):
    """The files of the shared libraries the dynamic loader maps for `path`."""
    r = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    libs = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if "=>" in parts and len(parts) > parts.index("=>") + 1 and parts[parts.index("=>") + 1].startswith("/"):
            libs.append(parts[parts.index("=>") + 1])
        elif parts and parts[0].startswith("/"):
            libs.append(parts[0])  # the loader itself
    return [os.path.realpath(p) for p in libs]


def version_ms(cmd, runs=51, warm=3):
    for _ in range(warm):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    got = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        got.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(got)


def scenario(h, first_byte_ms, ak, sk):
    """Records one row per tool under "static floe: size and start-up"."""
    sc = "static floe: size and start-up"
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    runs = 5 if h.quick else 15
    static = {}

    def find():
        static["path"] = build_static(repo)
    h.attempt(sc, "floe, static", find)
    if "path" not in static:
        return
    tools = [
        ("floe, static", static["path"], [static["path"], "--endpoint-url", h.ep, "--region", "us-east-1",
                                          "--path-style", "cat", "s3://bench/1k"]),
        ("floe, default build", h.floe, h.floe_args + ["cat", "s3://bench/1k"]),
        ("curl --aws-sigv4", shutil.which("curl"), ["curl", "-s", "--aws-sigv4", "aws:amz:us-east-1:s3",
                                                     "--user", f"{ak}:{sk}", f"{h.ep}/bench/1k"]),
    ]
    for tool, exe, get in tools:
        def go(tool=tool, exe=exe, get=get):
            libs = shared_libraries(exe)
            size = stripped_size(exe, h.work)
            libs_size = sum(stripped_size(p, h.work) for p in libs)
            first_byte_ms(get, h.env)  # page cache
            fb = statistics.median(first_byte_ms(get, h.env)[0] for _ in range(runs))
            h.record(sc, tool, size_mib=size / MiB, shared_libs=len(libs), shared_libs_mib=libs_size / MiB,
                     version_ms=version_ms([exe, "--version"]), first_byte_ms=fb, runs=runs)
        h.attempt(sc, tool, go)


def report(rows):
    floe = rows.get("floe, static", {})
    out = ["### The static floe: size and start-up (medians)", "",
           "| tool | stripped MiB | shared libraries (stripped MiB) | `--version` ms | start to first byte, GET 1 KiB, ms | ÷ static floe |",
           "|---|---:|---:|---:|---:|---:|"]
    for tool, f in rows.items():
        if "error" in f:
            out.append(f"| {tool} | failed: {f['error']} |")
            continue
        ratio = f"{f['first_byte_ms'] / floe['first_byte_ms']:.2f}" if floe.get("first_byte_ms") else "–"
        libs = f"{f['shared_libs']} ({f['shared_libs_mib']:.1f})" if f["shared_libs"] else "none"
        out.append(f"| {tool} | {f['size_mib']:.1f} | {libs} | {f['version_ms']:.1f} | {f['first_byte_ms']:.1f} | {ratio} |")
    return out
