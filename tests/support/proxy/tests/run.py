#!/usr/bin/env python3
"""Runs the proxy self-tests (unittest) and prints `floe-cases: N passed, M failed`.
   run.py [-k substring]"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"

import common  # noqa: E402


def main():
    pattern = None
    if len(sys.argv) == 3 and sys.argv[1] == "-k":
        pattern = sys.argv[2]
    loader = unittest.TestLoader()
    if pattern:
        loader.testNamePatterns = [f"*{pattern}*"]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    common.stop_moto()
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    # a skip is a failure here: a needed server or tool was missing
    print(f"floe-cases: {passed} passed, {failed + skipped} failed")
    return 0 if failed + skipped == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
