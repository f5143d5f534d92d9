#!/usr/bin/env python3
"""Prints the tests a swift-testing log shows as started and never finished (a hung run's suspects)."""
import re
import sys

started, finished = [], set()
with open(sys.argv[1], errors="replace") as log:
    for line in log:
        if m := re.search(r"◇ Test (.+?) started\.", line):
            started.append(m.group(1))
        elif m := re.search(r"[✔✘] Test (.+?) (?:passed|failed|with \d+ test case)", line):
            finished.add(m.group(1))
for name in started:
    if name not in finished and name != "run" and not name.startswith("case "):
        print("  " + name)
