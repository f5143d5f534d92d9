#!/usr/bin/env python3
"""aiohomekit 4.0.1 as a controller, measured against one accessory exactly as Benchmarks/ControllerBench measures
Hearth's controller (scripts/bench-controller.sh runs both in one run, same accessory). Prints one JSON object.

Phases: pair-setup (connect + M1..M6 through IpDiscovery, then the pairing is removed and made again), pair-verify
(a new IpPairing, connect + M1..M4, shutdown), read and write round trips on one session, sequential reads for
--throughput-count reads or --throughput-seconds, and, with --restart-command and --control, the time from the
accessory listening again after a restart to the first event on the subscribed session (aiohomekit's own
reconnect and re-subscribe, then a change made through the control interface every 10 ms until one arrives).
Process CPU time (time.process_time_ns, CLOCK_PROCESS_CPUTIME_ID) is measured over each phase.

The accessory is addressed by host and port; no mDNS, no zeroconf instance.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import sys
import time

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.model.categories import Categories
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HAP_TYPE_TCP, HomeKitService

ON_TYPE = "00000025-0000-1000-8000-0026BB765291"


def log(text: str) -> None:
    print(f"[aiohomekit] {text}", file=sys.stderr, flush=True)


class Phase:
    def __init__(self):
        self.samples: list[int] = []
        self.cpu_samples: list[int] = []
        self.cpu_ns = 0
        self.wall_ns = 0
        self.ops = 0

    def pct(self, p, values=None):
        values = self.samples if values is None else values
        if not values:
            return None
        s = sorted(values)
        rank = math.ceil(p / 100 * len(s)) - 1
        return s[min(len(s) - 1, max(0, rank))] / 1e6

    def fields(self, name):
        out = {f"{name}_n": float(self.ops)}
        if self.samples:
            out[f"{name}_p50_ms"] = self.pct(50)
            out[f"{name}_p99_ms"] = self.pct(99)
        if self.ops and self.cpu_ns:
            out[f"{name}_cpu_ms_per_op"] = self.cpu_ns / 1e6 / self.ops
        if self.cpu_samples:
            out[f"{name}_cpu_p50_ms"] = self.pct(50, self.cpu_samples)
        if self.wall_ns:
            out[f"{name}_per_second"] = self.ops / (self.wall_ns / 1e9)
        return out


async def control_send(host: str, port: int, line: str) -> None:
    """One command to hearth-sim's control interface; nothing when it is not listening yet."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return
    try:
        writer.write((line + "\n").encode())
        await writer.drain()
        await asyncio.wait_for(reader.readline(), 5)
    except (OSError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


async def run(a) -> dict:
    ctrl = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=None)
    description = HomeKitService(
        name="bench-target", id="00:00:00:00:00:00", model="", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags(1), config_num=0, state_num=0, category=Categories.OTHER,
        protocol_version="1.1", type=HAP_TYPE_TCP, address=a.host, addresses=[a.host], port=a.port)
    result: dict = {"controller": "aiohomekit 4.0.1"}

    log(f"pair-setup x{a.setup_reps}")
    setup = Phase()
    data = None
    for rep in range(a.setup_reps):
        disc = IpDiscovery(ctrl, description)
        try:
            c0, t0 = time.process_time_ns(), time.monotonic_ns()
            finish = await asyncio.wait_for(disc.async_start_pairing("bench"), a.timeout)
            pairing = await asyncio.wait_for(finish(a.setup_code), a.timeout)
            setup.samples.append(time.monotonic_ns() - t0)
            setup.cpu_samples.append(time.process_time_ns() - c0)
            setup.cpu_ns += setup.cpu_samples[-1]
            setup.ops += 1
        finally:
            await disc.close()
        data = dict(pairing.pairing_data)
        ctrl.pairings.pop("bench", None)
        if rep < a.setup_reps - 1:
            p = IpPairing(ctrl, dict(data))
            try:
                await asyncio.wait_for(p._ensure_connected(), a.timeout)
                await asyncio.wait_for(p.remove_pairing(data["iOSPairingId"]), a.timeout)
            finally:
                await p.shutdown()
    result.update(setup.fields("pair_setup"))

    log(f"pair-verify x{a.verify_reps}")
    verify = Phase()
    for _ in range(a.verify_reps):
        c0, t0 = time.process_time_ns(), time.monotonic_ns()
        p = IpPairing(ctrl, dict(data))
        await asyncio.wait_for(p._ensure_connected(), a.timeout)
        verify.samples.append(time.monotonic_ns() - t0)
        await p.shutdown()
        verify.cpu_ns += time.process_time_ns() - c0
        verify.ops += 1
    result.update(verify.fields("pair_verify"))

    A = IpPairing(ctrl, dict(data))
    await asyncio.wait_for(A._ensure_connected(), a.timeout)
    accessories = await asyncio.wait_for(A.list_accessories_and_characteristics(), a.timeout)
    on = None
    for acc in accessories:
        for svc in acc["services"]:
            for ch in svc["characteristics"]:
                if on is None and ch["type"] == ON_TYPE:
                    on = (acc["aid"], ch["iid"])
    if on is None:
        raise SystemExit("no On characteristic")
    result["characteristic"] = f"{on[0]}.{on[1]}"
    for _ in range(50):
        await A.get_characteristics([on])

    log(f"read and write round trips x{a.latency_reps}")
    reads = Phase()
    c0, w0 = time.process_time_ns(), time.monotonic_ns()
    for _ in range(a.latency_reps):
        t0 = time.monotonic_ns()
        r = await asyncio.wait_for(A.get_characteristics([on]), a.timeout)
        reads.samples.append(time.monotonic_ns() - t0)
        if "value" not in r.get(on, {}):
            raise SystemExit(f"read failed: {r}")
    reads.cpu_ns, reads.wall_ns, reads.ops = time.process_time_ns() - c0, time.monotonic_ns() - w0, a.latency_reps
    result.update(reads.fields("read"))

    writes = Phase()
    flag = False
    c0, w0 = time.process_time_ns(), time.monotonic_ns()
    for _ in range(a.latency_reps):
        flag = not flag
        t0 = time.monotonic_ns()
        r = await asyncio.wait_for(A.put_characteristics([(on[0], on[1], flag)]), a.timeout)
        writes.samples.append(time.monotonic_ns() - t0)
        if r:
            raise SystemExit(f"write failed: {r}")
    writes.cpu_ns, writes.wall_ns, writes.ops = time.process_time_ns() - c0, time.monotonic_ns() - w0, a.latency_reps
    result.update(writes.fields("write"))

    log(f"sequential reads: {a.throughput_count} or {a.throughput_seconds} s")
    tput = Phase()
    deadline = time.monotonic() + a.throughput_seconds
    c0, w0 = time.process_time_ns(), time.monotonic_ns()
    while tput.ops < a.throughput_count and time.monotonic() < deadline:
        await A.get_characteristics([on])
        tput.ops += 1
    tput.cpu_ns, tput.wall_ns = time.process_time_ns() - c0, time.monotonic_ns() - w0
    result.update(tput.fields("read_throughput"))

    if a.restart_command and a.control and a.reconnect_reps > 0:
        log(f"restart -> first event x{a.reconnect_reps}")
        chost, cport = a.control.rsplit(":", 1)
        last = [0]

        def on_event(event):
            if on in event and "value" in event[on]:
                last[0] = time.monotonic_ns()

        A.dispatcher_connect(on_event)
        await A.subscribe([on])
        reconnect = Phase()
        value = False
        for rep in range(a.reconnect_reps):
            # Asynchronously, so aiohomekit's own reconnect loop runs while the accessory is down.
            proc = await asyncio.create_subprocess_shell(a.restart_command)
            if await proc.wait() != 0:
                raise SystemExit("the restart command failed")
            back = time.monotonic_ns()
            limit = back + 30_000_000_000
            arrived = None
            while time.monotonic_ns() < limit:
                value = not value
                await control_send(chost, int(cport), f"set {on[0]} {on[1]} {json.dumps(value)}")
                await asyncio.sleep(0.01)
                if last[0] > back:
                    arrived = last[0]
                    break
            if arrived is None:
                # aiohomekit's own reconnect loop sometimes does not come back; count it and stop restarting.
                log(f"no event within 30 s of restart {rep + 1}")
                result["restart_to_event_timeouts"] = 1
                break
            reconnect.samples.append(arrived - back)
            reconnect.ops += 1
        if reconnect.samples:
            result.update(reconnect.fields("restart_to_event"))
            result["restart_to_event_max_ms"] = max(reconnect.samples) / 1e6

    try:
        await asyncio.wait_for(A.remove_pairing(data["iOSPairingId"]), a.timeout)
    except Exception as error:  # the session may not have come back after a restart; the results stand
        log(f"could not remove the pairing at the end: {error!r}")
    await A.shutdown()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=51836)
    ap.add_argument("--setup-code", default="031-45-154")
    ap.add_argument("--control", help="hearth-sim's control interface, HOST:PORT")
    ap.add_argument("--restart-command", help="restarts the accessory; returns once it listens again")
    ap.add_argument("--setup-reps", type=int, default=10)
    ap.add_argument("--verify-reps", type=int, default=50)
    ap.add_argument("--latency-reps", type=int, default=1000)
    ap.add_argument("--throughput-count", type=int, default=50000)
    ap.add_argument("--throughput-seconds", type=float, default=5.0)
    ap.add_argument("--reconnect-reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=30.0)
    a = ap.parse_args()
    a.setup_reps = max(1, a.setup_reps)
    a.latency_reps = max(1, a.latency_reps)
    logging.basicConfig(level=os.environ.get("AIOHOMEKIT_LOG", "WARNING"))
    print(json.dumps(asyncio.run(run(a)), indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
