#!/usr/bin/env python3
"""Fails when a suite of a GoogleTest binary is in none of the ctest groups.

    check_suites.py BINARY 'Suite.*:Other/Param.*:...'

The groups' --gtest_filter patterns, joined with ':', are matched against
every suite the binary lists (--gtest_list_tests), so a new suite cannot be
left out of ctest without this test saying which."""

import fnmatch
import subprocess
import sys


def main():
    binary, filters = sys.argv[1], sys.argv[2]
    patterns = [p for p in filters.split(":") if p]
    listing = subprocess.run([binary, "--gtest_list_tests"], check=True,
                             stdout=subprocess.PIPE, universal_newlines=True).stdout
    suites = [line.split()[0] for line in listing.splitlines()
              if line and not line[0].isspace() and line.split()[0].endswith(".")]
    missing = [s for s in suites
               if not any(fnmatch.fnmatchcase(s + "AnyTest", p) for p in patterns)]
    print("%d suites, %d in no group" % (len(suites), len(missing)))
    for s in missing:
        print("  not run by ctest: %s*" % s)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
