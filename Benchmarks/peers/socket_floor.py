#!/usr/bin/env python3
"""The floor under "controller CPU per read" on this machine: two processes on 127.0.0.1 TCP exchange a 100-byte
request and answer, one at a time, with blocking sockets and no parsing, encryption or event loop. Prints one JSON
object with the client's process CPU (CLOCK_PROCESS_CPUTIME_ID) and wall time per round trip.

No program that sends one request and waits for its answer can spend less CPU per request than this on the same
machine with the same CPU placement; scripts/bench-controller.sh runs it pinned like the controllers
(--client-cpus, --server-cpus: taskset-style lists) so its row sits next to theirs.

Usage: socket_floor.py [--count 50000] [--client-cpus 0] [--server-cpus 0]
       socket_floor.py --serve [--server-cpus 0]: only the echo server, for another client (Benchmarks/NIOFloor);
       prints {"port": N} once listening on 127.0.0.1, serves one connection, exits when it closes (or after 30 s
       without one).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import time


def cpus(text: str | None) -> set[int] | None:
    if not text:
        return None
    chosen: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        chosen.update(range(int(low), int(high or low) + 1))
    return chosen


def serve(listener: socket.socket, server_cpus: str | None) -> None:
    """Echoes everything one connection sends until it closes."""
    if (chosen := cpus(server_cpus)) is not None:
        os.sched_setaffinity(0, chosen)
    listener.settimeout(30)  # a client that never connects does not leave this server behind
    peer, _ = listener.accept()
    peer.settimeout(None)
    peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while data := peer.recv(4096):
        peer.sendall(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=50_000)
    parser.add_argument("--client-cpus")
    parser.add_argument("--server-cpus")
    parser.add_argument("--serve", action="store_true")
    args = parser.parse_args()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    address = listener.getsockname()
    if args.serve:
        print(json.dumps({"port": address[1]}), flush=True)
        serve(listener, args.server_cpus)
        return
    child = os.fork()
    if child == 0:
        try:
            serve(listener, args.server_cpus)
        finally:
            os._exit(0)
    listener.close()
    if (chosen := cpus(args.client_cpus)) is not None:
        os.sched_setaffinity(0, chosen)
    client = socket.create_connection(address)
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    message = b"x" * 100

    def round_trip() -> None:
        client.sendall(message)
        received = len(client.recv(4096))
        while received < len(message):  # TCP may split the echo; the next request waits for all of it
            chunk = client.recv(4096)
            if not chunk:
                raise ConnectionError("the echo side closed")
            received += len(chunk)

    for _ in range(2_000):
        round_trip()
    cpu0, wall0 = time.process_time_ns(), time.perf_counter_ns()
    for _ in range(args.count):
        round_trip()
    cpu1, wall1 = time.process_time_ns(), time.perf_counter_ns()
    client.close()
    os.waitpid(child, 0)
    print(json.dumps({
        "floor_cpu_ms_per_round_trip": (cpu1 - cpu0) / 1e6 / args.count,
        "floor_wall_ms_per_round_trip": (wall1 - wall0) / 1e6 / args.count,
        "floor_n": args.count,
    }))


if __name__ == "__main__":
    main()
