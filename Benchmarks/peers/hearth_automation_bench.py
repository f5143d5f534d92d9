#!/usr/bin/env python3
"""hearth_automation_bench.py - Hearth's hub (hearthd) running an automation, measured the way
../shared/peers/ha measures Home Assistant (issue 17's end-to-end benchmark).

Runs INSIDE the controller network namespace (scripts/bench-automation.sh starts it with `ip netns exec`),
with the repository's .venv python (aiohomekit 4.0.1 for the observer session). It starts and stops `hearthd`
itself, as a child process in the same namespace; hearthd's API is used on 127.0.0.1 only. The accessory is
hearth-sim in the accessory namespace (`--preset lightbulb:3 --preset door-lock --preset motion-sensor
--coalesce-milliseconds 0`), driven through its control socket.

One run: fresh state folder -> hearthd -> a home -> pair the bridge by address (POST .../accessories with host,
port and setup code) -> the scene "Lamp B on" and two triggers (lamp A's On becomes true -> the scene; the motion
sensor detects motion -> the scene) -> an observer HAP session with the hub's own pairing keys (read from
<state>/controller) subscribed to lamp B's On -> idle CPU -> warm-up + FIRINGS firings lamp A -> lamp B, then
motion sensor -> lamp B -> triggers off -> REST writes -> idle CPU -> memory -> SIGTERM.

Definitions (as ha_bench.py's):
  latency   from the control socket's `ok T_NS` (CLOCK_MONOTONIC just before the value changes at the
            accessory) to the observer's event for lamp B's On = true (the hub's write reached the accessory;
            the accessory's event path to the observer is included, so it is an upper bound of the arrival).
  reset     before each firing: lamp A and lamp B off at the accessory, then the hub's API polled (20 ms) until
            it shows both off, then a 50 ms gap.
  CPU       of the hearthd process: sum of se.sum_exec_runtime over /proc/PID/task/*/sched (and /proc/PID/stat
            ticks as a cross-check), from just before the trigger to 20 ms after the write arrived, minus the idle
            rate measured before the firings over the same windows; "whole cycle" also holds the reset.
  RSS       VmRSS of hearthd after pairing, and at the end.
Prints nothing but errors; writes one JSON file (--out). `report` prints Hearth and Home Assistant side by side.
"""
import argparse
import asyncio
import base64
import glob
import json
import os
import signal
import statistics
import subprocess
import sys
import time

ON_UUID = "00000025-0000-1000-8000-0026BB765291"
NAME_UUID = "00000023-0000-1000-8000-0026BB765291"
MOTION_UUID = "00000022-0000-1000-8000-0026BB765291"


def now_ns() -> int:
    return time.monotonic_ns()


def full_uuid(t: str) -> str:
    t = t.upper()
    if len(t) <= 8:
        return t.rjust(8, "0") + "-0000-1000-8000-0026BB765291"
    return t


def pct(vals, p):
    if not vals:
        return None
    s = sorted(vals)
    k = (len(s) - 1) * p / 100.0
    f = int(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def summarize(vals):
    if not vals:
        return {"n": 0}
    return {"n": len(vals), "min": round(min(vals), 3), "p50": round(pct(vals, 50), 3),
            "p90": round(pct(vals, 90), 3), "p99": round(pct(vals, 99), 3),
            "max": round(max(vals), 3), "mean": round(statistics.fmean(vals), 3)}


# ---------------------------------------------------------------- /proc readings
def cpu_sched_ns(pid):
    total, found = 0.0, False
    for path in glob.glob(f"/proc/{pid}/task/*/sched"):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("se.sum_exec_runtime"):
                        total += float(line.split(":")[1])
                        found = True
                        break
        except OSError:
            continue
    return int(total * 1e6) if found else None


def context_switches(pid):
    """Voluntary and involuntary context switches of all of `pid`'s threads so far (a thread hop costs one)."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split(":")[1])
        except OSError:
            continue
    return total


def cpu_stat_ns(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int((int(fields[11]) + int(fields[12])) * 1e9 / os.sysconf("SC_CLK_TCK"))
    except OSError:
        return None


def cpu_both(pid):
    return cpu_sched_ns(pid), cpu_stat_ns(pid)


def mem_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "VmSize", "RssAnon", "RssFile", "Threads"):
                    v = v.strip()
                    out[k] = int(v.split()[0]) if k != "Threads" else int(v)
    except OSError:
        pass
    if "VmRSS" in out:
        out["VmRSS_MiB"] = round(out["VmRSS"] / 1024, 1)
    if "VmHWM" in out:
        out["VmHWM_MiB"] = round(out["VmHWM"] / 1024, 1)
    return out


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[:3]
    except OSError:
        return None


async def measure_idle(pid, seconds):
    x0, (c0, s0), w0 = context_switches(pid), cpu_both(pid), now_ns()
    await asyncio.sleep(seconds)
    x1, (c1, s1), w1 = context_switches(pid), cpu_both(pid), now_ns()
    wall = (w1 - w0) / 1e9
    return {"seconds": round(wall, 2), "context_switches_per_s": round((x1 - x0) / wall, 1),
            "cpu_ms_per_s": round((c1 - c0) / 1e6 / wall, 3) if c0 is not None else None,
            "cpu_ms_per_s_stat": round((s1 - s0) / 1e6 / wall, 3) if s0 is not None else None}


# ---------------------------------------------------------------- hearthd and its API
class Hearthd:
    """The hub process, started here so its PID (and only it) is ours to stop."""

    def __init__(self, binary, state, port, log_path):
        self.binary, self.state, self.port, self.log_path = binary, state, port, log_path
        self.proc = None

    def start(self):
        os.makedirs(self.state, exist_ok=True)
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [self.binary, "--state", self.state, "--address", "127.0.0.1", "--port", str(self.port),
             "--no-user-config", "--log-level", "warning"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self.proc.pid

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def stop(self, timeout=30):
        if not self.proc:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        rc = self.proc.returncode
        self.proc = None
        return rc


class API:
    """A minimal HTTP/1.1 keep-alive client for hearthd's JSON API on 127.0.0.1."""

    def __init__(self, port, token=None):
        self.port, self.token = port, token
        self.r = self.w = None

    async def open(self):
        self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self):
        if self.w:
            self.w.close()
            self.w = None

    async def call(self, method, path, body=None, timeout=30):
        if self.w is None:
            await self.open()
        data = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if self.token:
            head += f"Authorization: Bearer {self.token}\r\n"
        self.w.write(head.encode() + b"\r\n" + data)
        await self.w.drain()
        status_line = await asyncio.wait_for(self.r.readline(), timeout)
        if not status_line:
            self.close()
            raise ConnectionError("hearthd closed the connection")
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while True:
            line = (await asyncio.wait_for(self.r.readline(), timeout)).decode().strip()
            if not line:
                break
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if chunked:
            payload = b""
            while True:
                size = int((await self.r.readline()).strip(), 16)
                if size == 0:
                    await self.r.readline()
                    break
                payload += await self.r.readexactly(size)
                await self.r.readline()
        else:
            payload = await self.r.readexactly(length) if length else b""
        return status, (json.loads(payload) if payload else None)

    async def wait_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                st, _ = await self.call("GET", "/v1/me", timeout=2)
                if st in (200, 401):
                    return True
            except (OSError, ConnectionError, asyncio.TimeoutError, ValueError, IndexError):
                self.close()
            await asyncio.sleep(0.05)
        return False


def created_id(body):
    obj = next(v for k, v in body.items() if k != "events")
    return obj["id"]


# ---------------------------------------------------------------- accessory side
class LineConn:
    """The accessory's control socket: `set AID IID VALUE` answers `ok T_NS`."""

    def __init__(self, hostport):
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)
        self.r = self.w = None
        self.lock = asyncio.Lock()

    async def open(self):
        self.r, self.w = await asyncio.open_connection(self.host, self.port)

    async def cmd(self, line):
        async with self.lock:
            self.w.write((line + "\n").encode())
            await self.w.drain()
            return (await asyncio.wait_for(self.r.readline(), 10)).decode().strip()

    async def set(self, aid, iid, value):
        rep = await self.cmd(f"set {aid} {iid} {json.dumps(value)}")
        if not rep.startswith("ok"):
            raise RuntimeError(f"control: {rep}")
        return int(rep.split()[1])

    def close(self):
        if self.w:
            self.w.close()


class Arrivals:
    """Writes seen at the accessory through the observer session."""

    def __init__(self):
        self.waiters = []
        self.count = 0

    def expect(self, key, value):
        fut = asyncio.get_running_loop().create_future()
        self.waiters.append((key, value, fut))
        return fut

    def seen(self, t_ns, key, value):
        self.count += 1
        keep = []
        for k, v, fut in self.waiters:
            if fut.done():
                continue
            if k == key and bool(v) == bool(value):
                fut.set_result(t_ns)
            else:
                keep.append((k, v, fut))
        self.waiters = keep

    def cancel_all(self):
        for *_, fut in self.waiters:
            if not fut.done():
                fut.cancel()
        self.waiters = []


def hub_pairing_data(state):
    """aiohomekit pairing data made of the hub's controller identity and its record of the accessory."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519
    folder = os.path.join(state, "controller")
    with open(os.path.join(folder, "identity.json")) as f:
        identity = json.load(f)
    with open(os.path.join(folder, "accessories.json")) as f:
        records = json.load(f)
    record = records[0] if isinstance(records, list) else next(iter(records.values()))
    private = identity["privateKey"]
    private = bytes(private) if isinstance(private, list) else base64.b64decode(private)
    key = ed25519.Ed25519PrivateKey.from_private_bytes(private)
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {
        "AccessoryPairingID": record["deviceID"],
        "AccessoryLTPK": bytes(record["publicKey"]).hex(),
        "iOSPairingId": identity["pairingID"],
        "iOSDeviceLTSK": private.hex(),
        "iOSDeviceLTPK": public.hex(),
        "AccessoryIP": record["host"],
        "AccessoryPort": record["port"],
        "Connection": "IP",
    }


class Observer:
    """A second HAP session with the hub's pairing: reports events of lamp B."""

    def __init__(self, pairing_data, arrivals):
        self.pd = pairing_data
        self.arrivals = arrivals
        self.pairing = None
        self.accessories = None

    async def open(self):
        from aiohomekit.characteristic_cache import CharacteristicCacheMemory
        from aiohomekit.controller.ip.controller import IpController
        from aiohomekit.controller.ip.pairing import IpPairing
        self.ctrl = IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=None)
        self.pairing = IpPairing(self.ctrl, dict(self.pd))
        await asyncio.wait_for(self.pairing._ensure_connected(), 30)
        self.accessories = await self.pairing.list_accessories_and_characteristics()

        def cb(ev):
            t = now_ns()
            for key, v in ev.items():
                if isinstance(v, dict) and "value" in v:
                    self.arrivals.seen(t, tuple(key), v["value"])
        self.pairing.dispatcher_connect(cb)

    async def subscribe(self, keys):
        await self.pairing.subscribe(keys)

    def find(self, acc_name, char_uuid):
        for acc in self.accessories:
            name = target = None
            for svc in acc["services"]:
                for ch in svc["characteristics"]:
                    t = full_uuid(ch["type"])
                    if t == NAME_UUID and name is None:
                        name = ch.get("value")
                    if t == char_uuid and target is None:
                        target = ch["iid"]
            if name == acc_name and target is not None:
                return acc["aid"], target
        raise KeyError(f"no accessory {acc_name!r} with {char_uuid}")

    async def close(self):
        if self.pairing:
            try:
                await self.pairing.close()
            except Exception:  # noqa: BLE001
                pass


def characteristic_id(accessories, name, char_uuid):
    """The hub's id of the characteristic `char_uuid` of the accessory called `name`."""
    for acc in accessories:
        if acc["name"] != name:
            continue
        for svc in acc["services"]:
            for ch in svc["characteristics"]:
                if full_uuid(ch["type"]) == char_uuid:
                    return ch["id"]
    raise KeyError(f"the hub has no accessory {name!r} with {char_uuid}")


# ---------------------------------------------------------------- measurements
async def wait_value(api, home, cid, want, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st, body = await api.call("GET", f"/v1/homes/{home}/characteristics/{cid}")
        if st == 200 and body["characteristic"].get("value") == want:
            return True
        await asyncio.sleep(interval)
    return False


async def automation_bench(a, api, home, ctl, arrivals, trigger_key, lamp_b, trigger_cid, b_cid, pid,
                           kind, idle_rate_ms_per_s, firings, split=False):
    """Firings trigger -> lamp B. With `split`, the observer also hears the trigger's own event (it is subscribed
    to it too), which splits each firing into the accessory's event leg and the hub plus its write."""
    out = {"trigger": kind, "firings": firings}
    lat = []
    event_leg, hub_leg = [], []
    misses = 0
    fire_cpu = fire_cpu_stat = fire_wall = fire_switches = 0
    c_start, s_start, w_start = *cpu_both(pid), now_ns()
    for _ in range(firings):
        await ctl.set(*trigger_key, False)
        await ctl.set(*lamp_b, False)
        ok_a = await wait_value(api, home, trigger_cid, False)
        ok_b = await wait_value(api, home, b_cid, False)
        if not (ok_a and ok_b):
            out["reset_timeouts"] = out.get("reset_timeouts", 0) + 1
        await asyncio.sleep(a.gap)
        fut = arrivals.expect(lamp_b, True)
        heard = arrivals.expect(trigger_key, True) if split else None
        x0 = context_switches(pid)
        c0, s0 = cpu_both(pid)
        t0 = await ctl.set(*trigger_key, True)
        try:
            t1 = await asyncio.wait_for(fut, a.timeout)
            lat.append((t1 - t0) / 1e6)
            if heard is not None and heard.done():
                event_leg.append((heard.result() - t0) / 1e6)
                hub_leg.append((t1 - heard.result()) / 1e6)
        except asyncio.TimeoutError:
            misses += 1
        await asyncio.sleep(a.settle)
        c1, s1 = cpu_both(pid)
        fire_switches += context_switches(pid) - x0
        fire_cpu += c1 - c0
        fire_cpu_stat += s1 - s0
        fire_wall += now_ns() - t0
        arrivals.cancel_all()
    c_end, s_end, w_end = *cpu_both(pid), now_ns()
    n = max(firings, 1)
    out["latency_ms_observer"] = summarize(lat)
    if split:
        out["trigger_event_at_observer_ms"] = summarize(event_leg)
        out["trigger_event_to_write_at_observer_ms"] = summarize(hub_leg)
    out["misses_observer"] = misses
    idle_in_windows = idle_rate_ms_per_s * fire_wall / 1e9
    out["cpu_ms_per_firing_window"] = round(fire_cpu / 1e6 / n, 3)
    out["cpu_ms_per_firing_window_stat"] = round(fire_cpu_stat / 1e6 / n, 3)
    out["cpu_ms_per_firing_window_net_of_idle"] = round((fire_cpu / 1e6 - idle_in_windows) / n, 3)
    out["context_switches_per_firing_window"] = round(fire_switches / n, 1)
    out["firing_window_ms_mean"] = round(fire_wall / 1e6 / n, 2)
    out["cpu_ms_per_cycle_total"] = round((c_end - c_start) / 1e6 / n, 3)
    out["cycle_wall_s"] = round((w_end - w_start) / 1e9, 2)
    return out, lat


async def rest_bench(a, api, home, arrivals, lamp_b, b_cid, pid):
    out = {"calls": a.rest_calls, "client": "one keep-alive connection, sequential, alternating true / false"}
    http_ms, write_ms, misses, errors = [], [], 0, 0
    await api.call("PUT", f"/v1/homes/{home}/characteristics/{b_cid}", {"value": False})
    await asyncio.sleep(0.3)
    arrivals.cancel_all()
    value = False
    c0, w0 = cpu_sched_ns(pid), now_ns()
    for _ in range(a.rest_calls):
        value = not value
        fut = arrivals.expect(lamp_b, value)
        t0 = now_ns()
        st, _ = await api.call("PUT", f"/v1/homes/{home}/characteristics/{b_cid}", {"value": value})
        t1 = now_ns()
        if st != 200:
            errors += 1
        http_ms.append((t1 - t0) / 1e6)
        try:
            tw = await asyncio.wait_for(fut, a.timeout)
            write_ms.append((tw - t0) / 1e6)
        except asyncio.TimeoutError:
            misses += 1
        arrivals.cancel_all()
    c1, w1 = cpu_sched_ns(pid), now_ns()
    out["http_response_ms"] = summarize(http_ms)
    out["write_arrival_ms_observer"] = summarize(write_ms)
    out["misses_observer"] = misses
    out["http_errors"] = errors
    out["cpu_ms_per_call"] = round((c1 - c0) / 1e6 / max(a.rest_calls, 1), 3)
    out["calls_per_s"] = round(a.rest_calls / ((w1 - w0) / 1e9), 1) if a.rest_calls else None
    return out


async def run(a, res):
    hub = Hearthd(a.hearthd, a.state, a.api_port, a.log)
    pid = hub.start()
    res["hearthd_pid"] = pid
    t_spawn = now_ns()
    try:
        api = API(a.api_port)
        if not await api.wait_up(60):
            raise RuntimeError("hearthd's API did not come up")
        res["spawn_to_api_s"] = round((now_ns() - t_spawn) / 1e9, 3)
        with open(os.path.join(a.state, "owner.token")) as f:
            api.token = f.read().strip()
        st, body = await api.call("POST", "/v1/homes", {"name": "Bench Home"})
        if st != 201:
            raise RuntimeError(f"create home: {st} {body}")
        home = body["home"]["id"]
        acc_host, acc_port = a.accessory.rsplit(":", 1)
        t0 = now_ns()
        st, body = await api.call("POST", f"/v1/homes/{home}/accessories",
                                  {"host": acc_host, "port": int(acc_port), "setupCode": a.pin}, timeout=120)
        if st != 201:
            raise RuntimeError(f"pairing: {st} {body}")
        res["pairing_ms"] = round((now_ns() - t0) / 1e6, 1)
        accessories = body["accessories"]
        res["accessories"] = [acc["name"] for acc in accessories]
        a_cid = characteristic_id(accessories, a.lamp_a, ON_UUID)
        b_cid = characteristic_id(accessories, a.lamp_b, ON_UUID)
        m_cid = characteristic_id(accessories, a.motion, MOTION_UUID)
        st, body = await api.call("POST", f"/v1/homes/{home}/actionSets", {
            "name": "Lamp B on", "actions": [{"characteristicID": b_cid, "targetValue": True}]})
        if st != 201:
            raise RuntimeError(f"scene: {st} {body}")
        scene = created_id(body)
        triggers = []
        for name, cid in (("lamp A on -> lamp B on", a_cid), ("motion -> lamp B on", m_cid)):
            st, body = await api.call("POST", f"/v1/homes/{home}/triggers", {
                "name": name, "actionSetIDs": [scene],
                "definition": {"events": [{"characteristic": {"id": cid, "value": True}}]}})
            if st != 201:
                raise RuntimeError(f"trigger {name!r}: {st} {body}")
            triggers.append(created_id(body))
        arrivals = Arrivals()
        obs = Observer(hub_pairing_data(a.state), arrivals)
        await obs.open()
        lamp_a = obs.find(a.lamp_a, ON_UUID)
        lamp_b = obs.find(a.lamp_b, ON_UUID)
        motion = obs.find(a.motion, MOTION_UUID)
        await obs.subscribe([lamp_b])
        res["lamp_a_aid_iid"], res["lamp_b_aid_iid"], res["motion_aid_iid"] = lamp_a, lamp_b, motion
        ctl = LineConn(a.control)
        await ctl.open()
        await asyncio.sleep(1.0)
        res["memory_after_pair"] = mem_status(pid)
        res["idle_before"] = await measure_idle(pid, a.idle_seconds)
        idle_rate = res["idle_before"]["cpu_ms_per_s"] or 0.0
        res["loadavg_before_benches"] = loadavg()
        await automation_bench(a, api, home, ctl, arrivals, lamp_a, lamp_b, a_cid, b_cid, pid, "warmup",
                               idle_rate, 5)
        res["automation"], lat = await automation_bench(
            a, api, home, ctl, arrivals, lamp_a, lamp_b, a_cid, b_cid, pid, "lamp A On false->true", idle_rate,
            a.firings)
        res["automation_samples_ms"] = [round(x, 3) for x in lat]
        res["automation_motion"], latm = await automation_bench(
            a, api, home, ctl, arrivals, motion, lamp_b, m_cid, b_cid, pid,
            "motion sensor MotionDetected false->true", idle_rate, a.firings)
        res["automation_motion_samples_ms"] = [round(x, 3) for x in latm]
        res["memory_after_firings"] = mem_status(pid)
        if a.split_firings:
            # Diagnostic, after the measured firings: the observer also subscribed to lamp A.
            await obs.subscribe([lamp_a])
            res["automation_split"], _ = await automation_bench(
                a, api, home, ctl, arrivals, lamp_a, lamp_b, a_cid, b_cid, pid,
                "lamp A On false->true, observer also on lamp A", idle_rate, a.split_firings, split=True)
        for trigger in triggers:
            await api.call("PATCH", f"/v1/homes/{home}/triggers/{trigger}", {"isEnabled": False})
        if a.rest_calls:
            res["rest"] = await rest_bench(a, api, home, arrivals, lamp_b, b_cid, pid)
        res["loadavg_after_benches"] = loadavg()
        res["idle_after"] = await measure_idle(pid, a.idle_seconds)
        res["memory_end"] = mem_status(pid)
        res["observer_events"] = arrivals.count
        ctl.close()
        api.close()
        await obs.close()
    finally:
        res["stop_rc"] = hub.stop()


def report(hearth_path, ha_path):
    """Hearth and Home Assistant side by side, with the ratios (HA / Hearth)."""
    hearth = json.load(open(hearth_path))
    ha = json.load(open(ha_path)) if ha_path and os.path.exists(ha_path) else None

    def get(doc, *path):
        for key in path:
            if doc is None or key not in doc:
                return None
            doc = doc[key]
        return doc

    rows = [
        ("automation A→B p50 ms (observer)", ("automation", "latency_ms_observer", "p50")),
        ("automation A→B p99 ms (observer)", ("automation", "latency_ms_observer", "p99")),
        ("automation A→B max ms", ("automation", "latency_ms_observer", "max")),
        ("automation motion→B p50 ms", ("automation_motion", "latency_ms_observer", "p50")),
        ("automation motion→B p99 ms", ("automation_motion", "latency_ms_observer", "p99")),
        ("misses", ("automation", "misses_observer")),
        ("split: lamp A's event at the observer p50 ms", ("automation_split", "trigger_event_at_observer_ms", "p50")),
        ("split: lamp A's event → B's write at the observer p50 ms",
         ("automation_split", "trigger_event_to_write_at_observer_ms", "p50")),
        ("hub CPU ms per firing, net of idle", ("automation", "cpu_ms_per_firing_window_net_of_idle")),
        ("hub CPU ms per firing (window, gross)", ("automation", "cpu_ms_per_firing_window")),
        ("hub CPU ms per firing (window, gross, /proc/PID/stat ticks)",
         ("automation", "cpu_ms_per_firing_window_stat")),
        ("hub context switches per firing (window)", ("automation", "context_switches_per_firing_window")),
        ("hub CPU ms per motion firing, net", ("automation_motion", "cpu_ms_per_firing_window_net_of_idle")),
        ("hub CPU ms per whole cycle", ("automation", "cpu_ms_per_cycle_total")),
        ("hub idle CPU ms/s", ("idle_before", "cpu_ms_per_s")),
        ("hub idle context switches/s", ("idle_before", "context_switches_per_s")),
        ("hub VmRSS MiB after pairing", ("memory_after_pair", "VmRSS_MiB")),
        ("hub VmRSS MiB at the end", ("memory_end", "VmRSS_MiB")),
        ("REST write: HTTP response p50 ms", ("rest", "http_response_ms", "p50")),
        ("REST write at accessory p50 ms (observer)", ("rest", "write_arrival_ms_observer", "p50")),
        ("hub CPU ms per REST call", ("rest", "cpu_ms_per_call")),
    ]
    print(f"| metric | Hearth | Home Assistant | HA / Hearth |")
    print("|---|---|---|---|")
    for label, path in rows:
        h = get(hearth, *path)
        o = get(ha, *path) if ha else None
        if ha and path[-1] == "misses_observer":
            o = get(ha, "automation", "misses_observer")
        ratio = f"{o / h:.1f}×" if isinstance(h, (int, float)) and isinstance(o, (int, float)) and h > 0 else "–"
        print(f"| {label} | {h if h is not None else '–'} | {o if o is not None else '–'} | {ratio} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="one measured run (inside the controller namespace)")
    r.add_argument("--hearthd", required=True)
    r.add_argument("--state", required=True, help="hearthd's state folder (made fresh)")
    r.add_argument("--log", required=True, help="hearthd's output")
    r.add_argument("--out", required=True, help="the JSON file to write")
    r.add_argument("--api-port", type=int, default=7979)
    r.add_argument("--accessory", required=True, help="the accessory's HAP address HOST:PORT")
    r.add_argument("--control", required=True, help="the accessory's control socket HOST:PORT")
    r.add_argument("--pin", default="031-45-154")
    r.add_argument("--lamp-a", default="Lightbulb 1")
    r.add_argument("--lamp-b", default="Lightbulb 2")
    r.add_argument("--motion", default="Motion Sensor")
    r.add_argument("--firings", type=int, default=300)
    r.add_argument("--rest-calls", type=int, default=200)
    r.add_argument("--split-firings", type=int, default=100,
                   help="diagnostic firings with the observer on lamp A too (0: none)")
    r.add_argument("--idle-seconds", type=float, default=30)
    r.add_argument("--gap", type=float, default=0.05, help="s between reset and firing")
    r.add_argument("--settle", type=float, default=0.02, help="s after the write before reading CPU")
    r.add_argument("--timeout", type=float, default=5.0)
    q = sub.add_parser("report", help="Hearth and Home Assistant side by side")
    q.add_argument("hearth_json")
    q.add_argument("ha_json", nargs="?")
    a = p.parse_args()
    if a.command == "report":
        report(a.hearth_json, a.ha_json)
        return
    res = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "params": vars(a)}
    rc = 0
    try:
        asyncio.run(run(a, res))
    except Exception as e:  # noqa: BLE001
        import traceback
        res["error"] = f"{type(e).__name__}: {e}"
        res["traceback"] = traceback.format_exc()
        print(res["traceback"], file=sys.stderr)
        rc = 1
    res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    sys.exit(rc)


if __name__ == "__main__":
    main()
