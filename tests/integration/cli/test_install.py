#!/usr/bin/env python3
"""`meson install` into a DESTDIR gives a working floe: headers, libfloe, the
pkg-config file and the CLI. The installed CLI runs without libfloe on the
library path; the example is compiled against the installed tree with
pkg-config alone and run against moto (FLOE_TEST_MOTO_ENDPOINT).

  test_install.py BUILD_DIR SOURCE_DIR

Prints "floe-cases: N passed, M failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

import cli_support

BUILD = SOURCE = None


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="floe-install-")
        cls.dest = os.path.join(cls.tmp.name, "root")
        r = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet", "--destdir", cls.dest],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        prefix = subprocess.run(["meson", "introspect", BUILD, "--buildoptions"], capture_output=True, text=True)
        import json
        opts = {o["name"]: o["value"] for o in json.loads(prefix.stdout)}
        cls.prefix = cls.dest + opts["prefix"]
        cls.libdir = os.path.join(cls.prefix, opts["libdir"])
        cls.bindir = os.path.join(cls.prefix, opts["bindir"])
        cls.incdir = os.path.join(cls.prefix, opts["includedir"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def clean_env(self):
        return {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH",)}

    def pkg_env(self):
        e = self.clean_env()
        e["PKG_CONFIG_PATH"] = os.path.join(self.libdir, "pkgconfig")
        e["PKG_CONFIG_SYSROOT_DIR"] = self.dest
        return e

    def test_files_installed(self):
        for p in (os.path.join(self.incdir, "floe/s3/client.hpp"), os.path.join(self.incdir, "floe/floe.hpp"),
                  os.path.join(self.libdir, "libfloe.so"), os.path.join(self.libdir, "pkgconfig/floe.pc"),
                  os.path.join(self.bindir, "floe")):
            self.assertTrue(os.path.isfile(p), p)

    def test_installed_cli_runs_without_libfloe(self):
        floe = os.path.join(self.bindir, "floe")
        r = subprocess.run([floe, "--version"], capture_output=True, text=True, env=self.clean_env(), timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("floe "), r.stdout)
        ldd = subprocess.run(["ldd", floe], capture_output=True, text=True, env=self.clean_env())
        self.assertNotIn("libfloe", ldd.stdout)

    def test_example_builds_against_installed_tree(self):
        endpoint = os.environ.get("FLOE_TEST_MOTO_ENDPOINT")
        self.assertTrue(endpoint, "FLOE_TEST_MOTO_ENDPOINT is not set: start moto with "
                                  "eval \"$(python3 tests/support/servers.py start build/test-servers)\" "
                                  "or run scripts/test")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "floe"], capture_output=True, text=True,
                               env=self.pkg_env())
        self.assertEqual(flags.returncode, 0, flags.stderr)
        self.assertIn(self.incdir, flags.stdout)
        exe = os.path.join(self.tmp.name, "put_get")
        cxx = os.environ.get("CXX", "c++")
        r = subprocess.run([cxx, "-std=c++20", "-O1", os.path.join(SOURCE, "examples/put_get.cpp"), "-o", exe]
                           + flags.stdout.split(), capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-4000:])
        env = self.clean_env()
        env.update({"LD_LIBRARY_PATH": self.libdir, "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "AKIDINSTALL",
                    "AWS_SECRET_ACCESS_KEY": "install-secret", "AWS_REGION": "us-east-1",
                    "AWS_EC2_METADATA_DISABLED": "true"})
        env.pop("AWS_PROFILE", None)
        run = subprocess.run([exe, "floe-install-" + uuid.uuid4().hex[:8], "k"], capture_output=True, text=True,
                             env=env, timeout=60)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("hello from floe", run.stdout)


def main():
    global BUILD, SOURCE
    BUILD, SOURCE = sys.argv[1], sys.argv[2]
    if shutil.which("meson") is None:
        return cli_support.cannot_run("meson is not on PATH (scripts/bootstrap installs it)")
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(Install))


if __name__ == "__main__":
    sys.exit(main())
