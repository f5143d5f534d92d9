#!/usr/bin/env python3
"""hearth_write_split.py - where an API write's time goes on its way to the event WebSocket (issue 22).

Two steps, run by scripts/bench-write-split.sh inside a namespace with only `lo`:

  writes --url U --token-file F --setup setup.json --writes N [--gap S]
         N times: PUT /v1/homes/H/characteristics/C {value} (a lamp's On, with urllib and a new connection each
         time; with --keep-alive on one kept-alive connection, as Benchmarks/peers/hearth_web_bench.py does)
         while an event WebSocket of the same owner is open;
         prints the time from sending the PUT to its answer and to the event's frame (p50 / p95 / min, ms).
  split  TRACE
         reads `perf trace -T` of hearthd taken during `writes` and prints, per step, the median / p90 / min in ms:
         accept -> req (the request's bytes read) -> accw (the write sent to the accessory) -> accr (its answer
         read) -> pw (the WAL's first pwrite: commit started) -> ws (the event's frame written) and, on the store's
         thread, sync / syncend (fdatasync) -> ans (the HTTP answer written). perf trace adds some tens of microseconds per traced
         call; compare runs traced alike.
"""

import argparse
import http.client
import json
import re
import socket
import statistics
import sys
import threading
import time
import urllib.parse
import urllib.request

import websocket


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round((len(ordered) - 1) * q)))]


def writes(args):
    token = open(args.token_file).read().strip()
    setup = json.load(open(args.setup))
    lamp = [lamp for lamp in setup["lamps"] if lamp.get("on")][0]
    home = setup["home"]
    ws = websocket.create_connection(args.url.replace("http", "ws", 1) + "/v1/events",
                                     header=["Authorization: Bearer " + token], timeout=30)
    ws.recv()  # hello
    ws.send(json.dumps({"resume": {}}))
    frames = []

    def read():
        while True:
            try:
                text = ws.recv()
            except Exception:
                return
            frames.append((time.monotonic(), text))

    threading.Thread(target=read, daemon=True).start()

    connection = None
    if args.keep_alive:
        parsed = urllib.parse.urlsplit(args.url)
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
        connection.connect()
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def put(value):
        if connection is not None:
            connection.request("PUT", f"/v1/homes/{home}/characteristics/{lamp['on']}",
                               body=json.dumps({"value": value}).encode(),
                               headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            return response.status
        request = urllib.request.Request(f"{args.url}/v1/homes/{home}/characteristics/{lamp['on']}",
                                         data=json.dumps({"value": value}).encode(), method="PUT")
        request.add_header("Authorization", "Bearer " + token)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status

    samples, state = [], False
    for i in range(args.writes):
        state = not state
        index = len(frames)
        start = time.monotonic()
        status = put(state)
        answered = time.monotonic()
        frame = None
        for _ in range(4000):  # at most 2 s
            frame = next((arrived for arrived, text in frames[index:] if lamp["on"] in text), None)
            if frame is not None:
                break
            time.sleep(0.0005)
        if status == 200 and frame is not None:
            samples.append(((answered - start) * 1e3, (frame - start) * 1e3))
        time.sleep(args.gap * (0.3 + (i % 3) * 0.1))
    for k, name in enumerate(["PUT -> answer", "PUT -> event frame"]):
        values = [s[k] for s in samples]
        print(f"{name:19s} n={len(values)} p50 {percentile(values, .5):.2f} p95 {percentile(values, .95):.2f} "
              f"min {min(values):.2f} ms")


def split(args):
    calls = []
    pattern = re.compile(r"\s*([\d.]+) \(\s*([\d.]*)\s*ms\): (\S+) (\w+)\(fd: (\d+)[^)]*\).*?(?:= (-?\d+))?\s*$")
    for line in open(args.trace):
        match = pattern.match(line)
        if match:
            t, d, _, call, fd, result = match.groups()
            calls.append((float(t), float(d or 0), call, int(fd), int(result) if result else None))
    calls.sort()
    cycles, current = [], None
    for t, d, call, fd, result in calls:
        if call == "accept4" and result is not None and result >= 0:
            current = {"fd": result, "accept": t}
            cycles.append(current)
        elif current is None:
            continue
        elif call == "read" and fd == current["fd"] and result and "req" not in current:
            current["req"] = t
        elif call == "write" and "req" in current and "accw" not in current and fd != current["fd"]:
            current["accw"], current["accfd"] = t, fd
        elif call == "read" and fd == current.get("accfd") and result and "accr" not in current:
            current["accr"] = t
        elif call == "pwrite64" and "accr" in current and "pw" not in current:
            current["pw"] = t
        elif call == "fdatasync" and "pw" in current and "sync" not in current:
            # On the store's own thread since 91f3886; the event's frame no longer waits for it.
            current["sync"], current["syncend"] = t, t + d
        elif call == "writev" and "pw" in current and fd != current["fd"] and "ws" not in current:
            current["ws"] = t
        elif call in ("writev", "write") and "pw" in current and fd == current["fd"] and "ans" not in current:
            current["ans"] = t
    # The sync runs on a thread the store starts later than `perf trace -p` attaches, so it may not be traced.
    steps = [("accept", "req"), ("req", "accw"), ("accw", "accr"), ("accr", "pw"), ("pw", "ws"), ("pw", "sync"),
             ("sync", "syncend"), ("syncend", "ans"), ("pw", "ans"), ("req", "ws"), ("req", "ans")]
    complete = [c for c in cycles if all(k in c for k in ("req", "accw", "accr", "pw", "ws", "ans"))]
    print(f"writes traced {len(cycles)}, complete {len(complete)}")
    for a, b in steps:
        values = [c[b] - c[a] for c in complete if a in c and b in c]
        if values:
            print(f"{a:>8s} -> {b:8s} median {statistics.median(values):.3f}  p90 {percentile(values, .9):.3f}  "
                  f"min {min(values):.3f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    w = sub.add_parser("writes")
    w.add_argument("--url", required=True)
    w.add_argument("--token-file", required=True)
    w.add_argument("--setup", required=True)
    w.add_argument("--writes", type=int, default=60)
    w.add_argument("--gap", type=float, default=1.0, help="scales the 0.3-0.5 s pause between writes")
    w.add_argument("--keep-alive", action="store_true", help="one kept-alive connection (not with perf trace)")
    s = sub.add_parser("split")
    s.add_argument("trace")
    args = parser.parse_args()
    {"writes": writes, "split": split}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
