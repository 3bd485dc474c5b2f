#!/usr/bin/env python3
"""Builds and runs tests/consumer, a tiny Meson project whose meson.build says
`dependency('floe')`, against floe in one of two ways:

  run_consumer.py installed  SOURCE_ROOT WORK_DIR
      floe configured on its own (the library only: no tests, CLI or
      benchmarks), `meson install`ed into WORK_DIR/prefix, and found by the
      consumer through pkg-config (PKG_CONFIG_PATH);
  run_consumer.py subproject SOURCE_ROOT WORK_DIR
      the consumer with subprojects/floe a symbolic link to this checkout:
      floe is built as a subproject through meson.override_dependency, with
      its tests, benchmarks and CLI off by default (checked).

The consumer must print "conflict" (floe's classification of Ceph RGW's 409
ConcurrentModification) and exit 0. Both builds use buildtype=plain: this
checks the build and the link, not the optimiser, and keeps the time spent
compiling floe once more short.
"""
import glob
import json
import os
import shutil
import subprocess
import sys


def run(argv, **kw):
    print("+ " + " ".join(argv), flush=True)
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout)
        sys.exit(f"consumer: `{' '.join(argv)}` exited with {r.returncode}")
    return r.stdout


def consumer_tree(src, work):
    """A copy of tests/consumer outside the checkout, as another project would be."""
    tree = os.path.join(work, "consumer")
    os.makedirs(tree)
    for f in ("meson.build", "main.cpp"):
        shutil.copy(os.path.join(src, "tests", "consumer", f), tree)
    return tree


def check_run(build, env=None):
    exe = os.path.join(build, "consumer")
    r = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    print(f"+ {exe}\n{r.stdout}", end="", flush=True)
    if r.returncode != 0 or r.stdout.strip() != "conflict":
        sys.exit(f"consumer: expected 'conflict' and exit 0, got {r.stdout.strip()!r} and {r.returncode}")


def installed(src, work):
    prefix = os.path.join(work, "prefix")
    floe_build = os.path.join(work, "floe-build")
    run(["meson", "setup", floe_build, src, f"--prefix={prefix}", "--buildtype=plain",
         "-Dtests=false", "-Dbench=false", "-Dcli=false"])
    run(["ninja", "-C", floe_build, "-j2"])
    run(["meson", "install", "-C", floe_build, "--no-rebuild", "--quiet"])
    pcs = glob.glob(os.path.join(prefix, "**", "pkgconfig", "floe.pc"), recursive=True)
    if len(pcs) != 1:
        sys.exit(f"consumer: expected one floe.pc under {prefix}, found {pcs}")
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
    build = os.path.join(work, "build")
    out = run(["meson", "setup", build, consumer_tree(src, work), "--buildtype=plain"], env=env)
    if "Run-time dependency floe found: YES" not in out:
        sys.exit("consumer: meson did not find floe through pkg-config:\n" + out)
    run(["ninja", "-C", build, "-j2"], env=env)
    libdir = os.path.dirname(os.path.dirname(pcs[0]))
    check_run(build, env=dict(env, LD_LIBRARY_PATH=libdir))


def subproject(src, work):
    tree = consumer_tree(src, work)
    os.makedirs(os.path.join(tree, "subprojects"))
    os.symlink(src, os.path.join(tree, "subprojects", "floe"))
    build = os.path.join(work, "build")
    out = run(["meson", "setup", build, tree, "--buildtype=plain"])
    if "Executing subproject floe" not in out:
        sys.exit("consumer: floe was not built as a subproject:\n" + out)
    targets = json.loads(run(["meson", "introspect", build, "--targets"]))
    floe_targets = sorted(t["name"] for t in targets if t["subproject"] == "floe")
    print(f"floe's targets as a subproject: {floe_targets}")
    if floe_targets != ["floe"] or [t["type"] for t in targets if t["subproject"] == "floe"] != ["shared library"]:
        sys.exit("consumer: as a subproject floe should build its library alone (no tests, CLI or "
                 f"benchmarks), but its targets are {floe_targets}")
    tests = json.loads(run(["meson", "introspect", build, "--tests"]))
    if tests:
        sys.exit(f"consumer: floe's tests were configured in the consumer: {[t['name'] for t in tests]}")
    run(["ninja", "-C", build, "-j2"])
    check_run(build)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("installed", "subproject"):
        sys.exit(__doc__)
    mode, src, work = sys.argv[1], os.path.realpath(sys.argv[2]), os.path.abspath(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # The consumer's own builds start from a clean environment of Meson's:
    # nothing of the outer `meson test` run leaks into them.
    for k in [k for k in os.environ if k.startswith("MESON")]:
        del os.environ[k]
    (installed if mode == "installed" else subproject)(src, work)
    shutil.rmtree(work, ignore_errors=True)
    print(f"consumer ({mode}): built and ran against floe")


if __name__ == "__main__":
    main()
