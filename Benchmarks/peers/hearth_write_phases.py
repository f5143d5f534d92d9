#!/usr/bin/env python3
"""Where hearthd's CPU goes in each step of an API write, from `perf record` with syscall tracepoints.

Usage: hearth_write_phases.py PERF_DATA [--depth N] [--top N] [--under REGEX]

PERF_DATA is what `TRACE=phases scripts/bench-write-split.sh` records: cpu-clock samples with call graphs, and the
entries of read, write, writev and pwrite64. Each write is cut into steps on the hub's loop thread by its
syscalls: the request's read → the write to the accessory (179 bytes, a lamp's On) → the read of its answer →
the first pwrite64 of the store's log → the eventfd write that wakes the event socket's loop; then, on that loop,
the wake → the frame's writev. For each step: its median duration, the samples per write, and the frames the
samples fall in (the first frame from the leaf that belongs to Hearth, Hummingbird, NIO's HTTP, GRDB or SQLite;
with --depth N, the N innermost frames; with --under REGEX, only samples under REGEX, by the frames below it).
"""
import argparse
import collections
import re
import subprocess

OURS = re.compile(r"Hub|HomeStore|HomeGraph|HAP|Hummingbird|HTTP|Automation|EventSession|JSON|Credentials|sqlite|"
                  r"GRDB|WebSocket")
HEAD = re.compile(r"^\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$")


def read_events(path):
    """(time, tid, kind, fd, count, stack) for every sample and traced syscall, in time order."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "tid,time,event,trace,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    events, current = [], None
    for line in out.split("\n"):
        match = HEAD.match(line)
        if match:
            rest = match.group(4)
            fd = re.search(r"fd: 0x([0-9a-f]+)", rest)
            count = re.search(r"count: 0x([0-9a-f]+)", rest)
            current = [float(match.group(2)), int(match.group(1)),
                       match.group(3).replace("syscalls:sys_enter_", ""),
                       int(fd.group(1), 16) if fd else None, int(count.group(1), 16) if count else None, []]
            events.append(current)
        elif line.strip() and current is not None:
            parts = line.strip().split(None, 1)
            current[5].append(parts[1] if len(parts) > 1 else parts[0])
    events.sort(key=lambda event: event[0])
    return events


def steps(events):
    """{step: [(start, end, tid)]} for every write whose syscalls were all found within 10 ms of each other."""
    writes = [e for e in events if e[2] == "write" and e[4] == 179]
    if not writes:
        raise SystemExit("no 179-byte write to an accessory in the recording")
    loop = collections.Counter(e[1] for e in writes).most_common(1)[0][0]
    accessory = collections.Counter(e[3] for e in writes).most_common(1)[0][0]
    calls = [e for e in events if e[1] == loop and e[2] != "cpu-clock"]
    found = collections.defaultdict(list)
    for index, write in enumerate(calls):
        if not (write[2] == "write" and write[3] == accessory):
            continue
        request = next((c for c in reversed(calls[:index])
                        if c[2] == "read" and c[4] == 2048 and c[3] != accessory), None)
        answer = next((c for c in calls[index + 1:] if c[2] == "read" and c[3] == accessory), None)
        if not request or not answer or write[0] - request[0] > 0.01 or answer[0] - write[0] > 0.01:
            continue
        after = calls.index(answer) + 1
        log = next((c for c in calls[after:] if c[2] == "pwrite64"), None)
        if not log or log[0] - answer[0] > 0.01:
            continue
        found["request → accessory write"].append((request[0], write[0], loop))
        found["accessory write → its answer"].append((write[0], answer[0], loop))
        found["answer → store's log write"].append((answer[0], log[0], loop))
        last = calls.index(log)
        while last + 1 < len(calls) and calls[last + 1][2] == "pwrite64":
            last += 1
        wake = calls[last + 1] if last + 1 < len(calls) else None
        if wake and wake[2] == "write" and wake[4] == 8:
            found["log write → wake of the socket's loop"].append((calls[last][0], wake[0], loop))
            frame = next((e for e in events if e[0] > wake[0] and e[2] == "writev" and e[1] != loop), None)
            if frame and frame[0] - wake[0] < 0.01:
                found["wake → event frame written"].append((wake[0], frame[0], frame[1]))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("perf_data")
    parser.add_argument("--depth", type=int, default=0)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--under")
    args = parser.parse_args()
    events = read_events(args.perf_data)
    samples = [e for e in events if e[2] == "cpu-clock"]
    under = re.compile(args.under) if args.under else None
    for name, spans in steps(events).items():
        durations = sorted(end - start for start, end, _ in spans)
        frames, counted = collections.Counter(), 0
        for start, end, tid in spans:
            for sample in samples:
                if sample[1] != tid or not start <= sample[0] < end:
                    continue
                stack = sample[5]
                if under:
                    outer = next((i for i in range(len(stack) - 1, -1, -1) if under.search(stack[i])), None)
                    if outer is None:
                        continue
                    key = " > ".join(reversed(stack[max(outer - args.depth, 0):outer + 1]))
                elif args.depth:
                    key = " < ".join(stack[:args.depth])
                else:
                    key = next((frame for frame in stack if OURS.search(frame)), stack[0] if stack else "?")
                frames[key] += 1
                counted += 1
        print(f"\n{name}: {len(spans)} writes, median {1000 * durations[len(durations) // 2]:.3f} ms, "
              f"{counted / len(spans):.1f} samples per write")
        for key, count in frames.most_common(args.top):
            print(f"  {100 * count / max(counted, 1):5.1f}%  {key[:300]}")


if __name__ == "__main__":
    main()
