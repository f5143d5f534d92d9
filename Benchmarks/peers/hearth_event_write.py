#!/usr/bin/env python3
"""The hub's own accessory event -> automation write, from `perf trace -e read,write` of hearthd (issue 17).

Usage: hearth_event_write.py TRACE

TRACE is what `TRACE=1 scripts/bench-automation.sh` records. A firing is a `read` of an accessory connection (the
event) followed on the same thread, with no other traced call in between, by a `write` to the same connection (the
scene's request to lamp B: lamp A and B are on one bridge). A REST write does not match: its request is read from
another connection. Prints the count and the percentiles in milliseconds (perf trace adds a few microseconds to
each call).
"""
import re
import sys

LINE = re.compile(r"^\s*([\d.]+)\s+\(\s*[\d.]+ ms\):\s+\S+/(\d+)\s+(read|write)\(fd: (\d+)")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    last = {}
    spans = []
    with open(sys.argv[1]) as trace:
        for line in trace:
            match = LINE.match(line)
            if not match:
                continue
            at, thread, call, fd = float(match.group(1)), match.group(2), match.group(3), int(match.group(4))
            previous = last.get(thread)
            if call == "write" and previous and previous[1] == "read" and previous[2] == fd and at - previous[0] < 5:
                spans.append(at - previous[0])
            last[thread] = (at, call, fd)
    if not spans:
        raise SystemExit("no accessory event followed by a write to its connection in the trace")
    spans.sort()

    def pct(p):
        return spans[min(len(spans) - 1, int(p * len(spans)))]

    print(f"hub event -> write (syscalls): n={len(spans)} p50 {pct(0.5):.3f} p90 {pct(0.9):.3f} "
          f"p99 {pct(0.99):.3f} max {spans[-1]:.3f} ms")


if __name__ == "__main__":
    main()
