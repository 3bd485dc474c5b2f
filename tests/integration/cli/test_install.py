#!/usr/bin/env python3
"""`meson install` into a DESTDIR gives a working floe: headers, libfloe, the
pkg-config file, the CMake package and the CLI. The installed CLI runs
without libfloe on the library path; the example is compiled against the
installed tree with pkg-config alone, and with CMake (find_package(floe),
tests/consumer/cmake/), and run against moto (FLOE_TEST_MOTO_ENDPOINT).

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
                  os.path.join(self.libdir, "cmake/floe/floeConfig.cmake"),
                  os.path.join(self.libdir, "cmake/floe/floeConfigVersion.cmake"),
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
        self.run_put_get(exe, endpoint)

    def run_put_get(self, exe, endpoint):
        env = self.clean_env()
        env.update({"LD_LIBRARY_PATH": self.libdir, "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "AKIDINSTALL",
                    "AWS_SECRET_ACCESS_KEY": "install-secret", "AWS_REGION": "us-east-1",
                    "AWS_EC2_METADATA_DISABLED": "true"})
        env.pop("AWS_PROFILE", None)
        run = subprocess.run([exe, "floe-install-" + uuid.uuid4().hex[:8], "k"], capture_output=True, text=True,
                             env=env, timeout=60)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("hello from floe", run.stdout)

    def cmake_configure(self, out, *defs):
        """tests/consumer/cmake/ configured against the installed prefix."""
        return subprocess.run(["cmake", "-S", os.path.join(SOURCE, "tests/consumer/cmake"), "-B", out,
                               "-DCMAKE_PREFIX_PATH=" + self.prefix,
                               "-DFLOE_PROGRAM=" + os.path.join(SOURCE, "examples/put_get.cpp")] + list(defs),
                              capture_output=True, text=True, env=self.clean_env(), timeout=300)

    def test_example_builds_with_cmake_package(self):
        endpoint = os.environ.get("FLOE_TEST_MOTO_ENDPOINT")
        self.assertTrue(endpoint, "FLOE_TEST_MOTO_ENDPOINT is not set: run scripts/test")
        if shutil.which("cmake") is None:
            self.fail("cmake is not on PATH (scripts/bootstrap installs it)")
        out = os.path.join(self.tmp.name, "cmake-floe")
        r = self.cmake_configure(out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # floe::floe carries the include path and the defines every unit must see alike.
        with open(os.path.join(out, "CMakeFiles/program.dir/flags.make"), encoding="utf-8") as f:
            flags = f.read()
        self.assertIn(self.incdir, flags)
        self.assertIn("BOOST_ASIO_RECYCLING_ALLOCATOR_CACHE_SIZE=8", flags)
        self.assertNotIn("FLOE_HEADER_ONLY", flags)
        r = subprocess.run(["cmake", "--build", out, "-j2"], capture_output=True, text=True,
                           env=self.clean_env(), timeout=600)
        self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-4000:])
        self.run_put_get(os.path.join(out, "program"), endpoint)

    def test_cmake_package_forms_and_version(self):
        # The header-only target configures (building it compiles all of
        # floe into the program: the put_get case above covers the link).
        out = os.path.join(self.tmp.name, "cmake-header-only")
        r = self.cmake_configure(out, "-DFLOE_TARGET=floe::header_only")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(out, "CMakeFiles/program.dir/flags.make"), encoding="utf-8") as f:
            self.assertIn("-DFLOE_HEADER_ONLY", f.read())
        # A version floe is not compatible with is refused.
        r = self.cmake_configure(os.path.join(self.tmp.name, "cmake-too-new"), "-DFLOE_VERSION_WANTED=99.0")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("considered but not accepted", r.stdout + r.stderr)

def main():
    global BUILD, SOURCE
    BUILD, SOURCE = sys.argv[1], sys.argv[2]
    if shutil.which("meson") is None:
        return cli_support.cannot_run("meson is not on PATH (scripts/bootstrap installs it)")
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(Install))


if __name__ == "__main__":
    sys.exit(main())
