#!/usr/bin/env python3
"""hearth_web_bench.py - Hearth's web page in headless Chromium over the DevTools protocol (issue 22's benchmark).

Measures hearthd's page the way ../shared/peers/ha/frontend measures Home Assistant's dashboard (same figures,
same definitions; this driver is written for Hearth and shares no code with that harness). Run by
scripts/bench-web.sh inside a network namespace that has only `lo`, with the repository's .venv python
(websocket-client). Two steps:

  setup  --url U --token-file F --accessory HOST:PORT --pin PIN --rooms N --out setup.json
         a home, the hearth-sim bridge paired by address, its accessories spread over N rooms
  run    --url U --token-file F --control HOST:PORT --setup setup.json --runs R --updates U
         --accessory-updates A --rate 100 --seconds S --out runs.json --shot DIR

Each cold run starts a new Chromium with a new profile, sets the hub's session cookie (HttpOnly, from
POST /v1/session) before navigating to `/`, and records: HTTP requests and bytes of the page
(`Network.loadingFinished.encodedDataLength`, headers included; the WebSocket is not an HTTP request), the load
event, first contentful paint, the time until every accessory's tile is in the DOM (a page script counts
`article.tile` every 20 ms, as HA's harness counts its rows), network quiet (no request in flight or new for 3 s),
then the JS heap (`Performance.getMetrics` JSHeapUsedSize), DOM nodes and Chromium's RSS. On the last run:

  api        PUT /v1/homes/H/characteristics/C {value} (a lamp's On) -> the lamp's tile shows it
             (a MutationObserver; epoch clocks of this process and the page, as HA's harness does); also the
             page's own share, from its WebSocket listener being called to the tile changing (the page's
             clock, which Chromium rounds to 0.1 ms)
  accessory  hearth-sim's control socket `set AID IID VALUE` (its `ok T_NS` is the moment the value changed at
             the accessory) -> the tile shows it; HAP event -> hub -> WebSocket -> page
  frames     RATE changes per second at the accessories (round robin over the lamps' On, and Brightness where
             there is one) for
             SECONDS s: the longest gap between animation frames, frames over 50 ms, and the longest
             long-animation-frame entry Chromium reports; also how many changes reached the page.
"""

import argparse
import base64
import glob
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import websocket  # websocket-client

CHROME = "/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") else "/usr/bin/chromium"
ON = "25"
BRIGHTNESS = "8"


def short(type_):
    upper = str(type_).upper()
    if upper.endswith("-0000-1000-8000-0026BB765291"):
        return upper[:8].lstrip("0") or "0"
    return upper


def pct(values, p):
    s = sorted(values)
    if not s:
        return None
    k = (len(s) - 1) * p / 100
    f = int(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def summary(values):
    if not values:
        return None
    return {"n": len(values), "min": round(min(values), 2), "p50": round(pct(values, 50), 2),
            "p95": round(pct(values, 95), 2), "p99": round(pct(values, 99), 2), "max": round(max(values), 2)}


# ---------------------------------------------------------------- the hub's API
class Hub:
    """The hub's API over one kept-alive HTTP/1.1 connection (TCP_NODELAY), as HA's harness uses one aiohttp
    session: a timed change pays the request, not a new TCP connection. Reconnects once if the hub closed it."""

    def __init__(self, url, token):
        self.url, self.token = url, token
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.connection = None

    def _connect(self):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        connection.connect()
        connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def call(self, method, path, body=None, headers=None, full=False):
        data = None if body is None else json.dumps(body).encode()
        fields = {"Authorization": "Bearer " + self.token}
        if data is not None:
            fields["Content-Type"] = "application/json"
        fields.update(headers or {})
        for attempt in (0, 1):
            if self.connection is None:
                self.connection = self._connect()
            try:
                self.connection.request(method, path, body=data, headers=fields)
                response = self.connection.getresponse()
                text = response.read().decode()
                break
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        if response.will_close:
            self.connection.close()
            self.connection = None
        result = response.status, (json.loads(text) if text else {})
        return (*result, response.headers) if full else result

    def session_cookie(self):
        """A new browser session for the owner: the cookie the page would get by signing in."""
        status, body, headers = self.call("POST", "/v1/session", {"token": self.token},
                                          headers={"X-Hearth-Request": "1"}, full=True)
        if status not in (200, 201):
            raise RuntimeError(f"POST /v1/session: {status} {body}")
        cookie = headers.get("Set-Cookie") or ""
        name, _, rest = cookie.partition("=")
        return name.strip(), rest.split(";", 1)[0]


# ---------------------------------------------------------------- the DevTools protocol
class CDP:
    """One browser-level DevTools WebSocket; flattened sessions; events go to listeners with their arrival time."""

    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=60, enable_multithread=True)
        self.ws.settimeout(None)
        self.next_id = 0
        self.lock = threading.Lock()
        self.pending = {}
        self.listeners = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            try:
                text = self.ws.recv()
            except Exception:
                for slot in list(self.pending.values()):
                    slot[1] = {"error": {"message": "closed"}}
                    slot[0].set()
                return
            if not text:
                continue
            message = json.loads(text)
            message["_rx"] = time.monotonic()
            if "id" in message and message["id"] in self.pending:
                slot = self.pending.pop(message["id"])
                slot[1] = message
                slot[0].set()
            else:
                for listener in self.listeners:
                    listener(message)

    def send(self, method, params=None, session=None, timeout=60):
        with self.lock:
            self.next_id += 1
            ident = self.next_id
            slot = [threading.Event(), None]
            self.pending[ident] = slot
            message = {"id": ident, "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            self.ws.send(json.dumps(message))
        if not slot[0].wait(timeout):
            raise TimeoutError(method)
        answer = slot[1]
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def evaluate(self, session, expression, timeout=60, await_promise=False):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": await_promise}, session, timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


class Chromium:
    """A fresh headless Chromium with its own profile, in its own process group (ours to stop)."""

    def __init__(self, profile, port):
        shutil.rmtree(profile, ignore_errors=True)
        os.makedirs(profile)
        self.port = port
        self.log = open(profile + ".log", "w")
        self.proc = subprocess.Popen(
            [CHROME, "--headless=new", "--no-sandbox", f"--remote-debugging-port={port}",
             f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--disable-extensions", "--metrics-recording-only", "--disable-gpu",
             "--no-proxy-server", "--window-size=1280,1024", "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def websocket_url(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/version", timeout=2) as r:
                    return json.loads(r.read())["webSocketDebuggerUrl"]
            except Exception:
                time.sleep(0.1)
        raise RuntimeError("Chromium's DevTools endpoint did not come up")

    def rss_mib(self):
        total = 0
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                fields = open(stat).read().rsplit(")", 1)[1].split()
                if int(fields[2]) != self.proc.pid:
                    continue
                for line in open(stat[:-4] + "status"):
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except (OSError, ValueError, IndexError):
                pass
        return round(total / 1024, 1)

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()


# Injected before the page's own script: counts tiles every 20 ms (as HA's harness counts its rows), and watches
# animation frames and long animation frames for the frames figure.
POLLER = r"""(function(){
  // The moment the page's WebSocket listener is called with each message (epoch ms), for the page's own share.
  window.__messageAt = null;
  const listen = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message') return listen.call(this, type, listener, options);
    return listen.call(this, type, function (event) {
      window.__messageAt = performance.timeOrigin + performance.now();
      return listener.call(this, event);
    }, options);
  };
  const N = %d;
  const B = window.__bench = {first: null, all: null, n: 0};
  const iv = setInterval(() => {
    const t = performance.now();
    const n = document.querySelectorAll('article.tile').length;
    B.n = n;
    if (n > 0 && B.first === null) B.first = t;
    if (n >= N) { B.all = t; clearInterval(iv); }
  }, 20);
  const F = window.__frames = {on: false, last: 0, maxGap: 0, over50: 0, frames: 0, loafMax: 0, loafOver50: 0};
  const tick = (t) => {
    if (F.on) { if (F.last) { const gap = t - F.last; F.maxGap = Math.max(F.maxGap, gap); if (gap > 50) F.over50++; }
                F.frames++; F.last = t; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  try {
    new PerformanceObserver((list) => { if (!F.on) return; for (const e of list.getEntries()) {
      F.loafMax = Math.max(F.loafMax, e.duration); if (e.duration > 50) F.loafOver50++; } })
      .observe({type: 'long-animation-frame', buffered: false});
  } catch (e) { F.loaf = String(e); }
})();"""

# Resolves once the accessory's tile shows On = want; records the moment (epoch ms) the DOM changed.
WAIT = r"""new Promise((resolve) => {
  const id = %s, want = %s;
  const isOn = () => { const t = document.querySelector('article.tile[data-accessory-id="' + id + '"]');
                       return t ? t.classList.contains('on') : null; };
  if (isOn() === want) { resolve(JSON.stringify({already: true})); return; }
  let timer;
  const observer = new MutationObserver(() => {
    if (isOn() !== want) return;
    const t = performance.now(); observer.disconnect(); clearTimeout(timer);
    requestAnimationFrame(() => resolve(JSON.stringify({message: window.__messageAt, seen: performance.timeOrigin + t,
                                                        frame: performance.timeOrigin + performance.now()})));
  });
  observer.observe(document.getElementById('homes'), {childList: true, subtree: true, attributes: true,
                                                      attributeFilter: ['class']});
  timer = setTimeout(() => { observer.disconnect(); resolve(JSON.stringify({timeout: true})); }, 10000);
})"""


class Run:
    """One cold load (and, on the last run, the live figures)."""

    def __init__(self, args, hub, setup, index):
        self.args, self.hub, self.setup, self.index = args, hub, setup, index
        self.requests = {}
        self.lifecycle = []
        self.load = None
        self.page = None
        self.ws_frames = 0
        self.frames_rx = []  # (Chromium's arrival time, payload start) of the page's WebSocket frames

    def on_event(self, message):
        method = message.get("method")
        params = message.get("params", {})
        session = message.get("sessionId")
        if session != self.page:
            return
        if method == "Network.requestWillBeSent":
            self.requests.setdefault(params["requestId"], {
                "url": params["request"]["url"], "type": params.get("type"), "t0": params["timestamp"],
                "enc": 0, "dec": 0})
        elif method == "Network.dataReceived":
            entry = self.requests.get(params["requestId"])
            if entry:
                entry["dec"] += params["dataLength"]
        elif method == "Network.responseReceived":
            entry = self.requests.get(params["requestId"])
            if entry:
                entry["status"] = params["response"].get("status")
        elif method == "Network.loadingFinished":
            entry = self.requests.get(params["requestId"])
            if entry:
                entry.update(enc=params["encodedDataLength"], t1=params["timestamp"], done=True)
        elif method == "Network.loadingFailed":
            entry = self.requests.get(params["requestId"])
            if entry:
                entry.update(t1=params["timestamp"], failed=params.get("errorText"), done=True)
        elif method == "Network.webSocketFrameReceived":
            self.ws_frames += 1
            # Chromium's timestamp is CLOCK_MONOTONIC seconds, the clock of time.monotonic() here.
            self.frames_rx.append((params["timestamp"], params["response"]["payloadData"][:600]))
        elif method == "Page.lifecycleEvent":
            self.lifecycle.append((params["name"], params["timestamp"]))
        elif method == "Page.loadEventFired":
            self.load = self.load or params["timestamp"]

    def go(self):
        args = self.args
        profile = os.path.join(args.work, f"profile-{self.index}")
        browser = Chromium(profile, args.devtools_port)
        result = {"run": self.index}
        try:
            cdp = CDP(browser.websocket_url())
            cdp.listeners.append(self.on_event)
            target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.page = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            sid = self.page
            for method in ("Page.enable", "Network.enable", "Performance.enable", "Runtime.enable"):
                cdp.send(method, session=sid)
            cdp.send("Page.setLifecycleEventsEnabled", {"enabled": True}, sid)
            cdp.send("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": 1024, "deviceScaleFactor": 1, "mobile": False}, sid)
            name, value = self.hub.session_cookie()
            cdp.send("Network.setCookie", {"name": name, "value": value, "url": args.url + "/", "httpOnly": True,
                                           "sameSite": "Strict"}, sid)
            cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": POLLER % self.setup["tiles"]}, sid)
            self.requests.clear()
            cdp.send("Page.navigate", {"url": args.url + "/"}, sid)
            deadline = time.monotonic() + 60
            bench = None
            while time.monotonic() < deadline:
                bench = json.loads(cdp.evaluate(sid, "JSON.stringify(window.__bench || null)") or "null")
                if bench and bench.get("all") is not None:
                    break
                time.sleep(0.1)
            deadline, last_change, last = time.monotonic() + 40, time.monotonic(), None
            while time.monotonic() < deadline:
                signature = (len(self.requests), sum(1 for r in self.requests.values() if r.get("done")))
                if signature != last:
                    last, last_change = signature, time.monotonic()
                in_flight = sum(1 for r in self.requests.values() if not r.get("done"))
                if in_flight == 0 and time.monotonic() - last_change > 3:
                    break
                time.sleep(0.1)
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics", session=sid)["metrics"]}
            navigation = json.loads(cdp.evaluate(
                sid, "JSON.stringify(performance.getEntriesByType('navigation')[0].toJSON())"))
            http = [r for r in self.requests.values() if r["url"].startswith("http")]
            documents = [r for r in http if r["type"] == "Document"]
            t0 = min(r["t0"] for r in documents) if documents else None
            firsts = {}
            for name_, ts in self.lifecycle:
                if t0 and ts >= t0 - 0.01 and name_ not in firsts:
                    firsts[name_] = round((ts - t0) * 1000, 1)
            result.update({
                "requests": len(http), "enc": sum(r["enc"] for r in http), "dec": sum(r["dec"] for r in http),
                "failed": [r["url"] for r in http if r.get("failed")],
                "by_url": [(r["url"].replace(args.url, ""), r.get("status"), r["enc"], r["dec"],
                            round((r["t0"] - t0) * 1000, 1) if t0 else None,
                            round((r.get("t1", r["t0"]) - t0) * 1000, 1) if t0 else None) for r in http],
                "load_ms": round(navigation["loadEventStart"], 1),
                "fcp_ms": firsts.get("firstContentfulPaint"),
                "tiles_first_ms": round(bench["first"], 1) if bench and bench.get("first") is not None else None,
                "tiles_all_ms": round(bench["all"], 1) if bench and bench.get("all") is not None else None,
                "tiles": bench.get("n") if bench else None,
                "network_idle_ms": round((max(r.get("t1", 0) for r in http) - t0) * 1000, 1) if http and t0 else None,
                "heap_used": metrics.get("JSHeapUsedSize"), "heap_total": metrics.get("JSHeapTotalSize"),
                "nodes": metrics.get("Nodes"), "chromium_rss_mib": browser.rss_mib(),
            })
            if args.shot and self.index == args.runs:
                shot = cdp.send("Page.captureScreenshot", {"format": "png"}, sid)
                with open(os.path.join(args.shot, "hearth-page.png"), "wb") as file:
                    file.write(base64.b64decode(shot["data"]))
            if self.index == args.runs:
                result["api"] = self.api_updates(cdp, sid)
                result["accessory"] = self.accessory_updates(cdp, sid)
                result["frames"] = self.frames(cdp, sid)
            cdp.close()
        finally:
            browser.stop()
        return result

    def lamps(self):
        return [lamp for lamp in self.setup["lamps"] if lamp.get("on")]

    def wait_async(self, cdp, sid, accessory_id, want):
        """Starts the page-side wait; returns a thread-backed handle with its answer."""
        box = {}

        def run():
            try:
                box["v"] = json.loads(cdp.evaluate(sid, WAIT % (json.dumps(accessory_id), "true" if want else "false"),
                                                   timeout=30, await_promise=True))
            except Exception as error:  # reported as a failed sample
                box["v"] = {"error": str(error)}

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.15)  # the observer is in place before the change
        return thread, box

    def frame_after(self, start, index, characteristic_id):
        """Milliseconds from `start` (monotonic) to the first WebSocket frame naming the characteristic."""
        for arrived, payload in self.frames_rx[index:]:
            if characteristic_id in payload:
                return (arrived - start) * 1000
        return None

    def api_updates(self, cdp, sid):
        lamp = self.lamps()[0]
        home = self.setup["home"]
        state = cdp.evaluate(sid, "document.querySelector('article.tile[data-accessory-id=\"%s\"]')"
                                  ".classList.contains('on')" % lamp["accessoryID"])
        samples, misses = [], 0
        for i in range(self.args.updates):
            want = not state
            thread, box = self.wait_async(cdp, sid, lamp["accessoryID"], want)
            index = len(self.frames_rx)
            sent, start = time.time() * 1000, time.monotonic()
            status, _ = self.hub.call("PUT", f"/v1/homes/{home}/characteristics/{lamp['on']}", {"value": want})
            thread.join(35)
            answer = box.get("v", {})
            if status != 200 or "seen" not in answer:
                misses += 1
            else:
                samples.append({"dom": answer["seen"] - sent, "frame": answer["frame"] - sent,
                                "ws": self.frame_after(start, index, lamp["on"]),
                                "page": answer["seen"] - answer["message"] if answer.get("message") else None})
            state = want
            time.sleep(0.3 + (i % 3) * 0.1)
        return {"dom_ms": summary([s["dom"] for s in samples]), "frame_ms": summary([s["frame"] for s in samples]),
                "ws_frame_ms": summary([s["ws"] for s in samples if s["ws"] is not None]),
                "page_ms": summary([s["page"] for s in samples if s["page"] is not None]), "misses": misses}

    def accessory_updates(self, cdp, sid):
        control = Control(self.args.control)
        lamps = self.lamps()
        samples, misses = [], 0
        try:
            for i in range(self.args.accessory_updates):
                lamp = lamps[i % len(lamps)]
                state = cdp.evaluate(sid, "document.querySelector('article.tile[data-accessory-id=\"%s\"]')"
                                          ".classList.contains('on')" % lamp["accessoryID"])
                want = not state
                thread, box = self.wait_async(cdp, sid, lamp["accessoryID"], want)
                index = len(self.frames_rx)
                changed_ns = control.set(lamp["aid"], lamp["onIID"], want)
                # The accessory's CLOCK_MONOTONIC moment of the change, on the epoch clock.
                changed = time.time() * 1000 - (time.monotonic_ns() - changed_ns) / 1e6
                thread.join(35)
                answer = box.get("v", {})
                if "seen" not in answer:
                    misses += 1
                else:
                    samples.append({"dom": answer["seen"] - changed, "frame": answer["frame"] - changed,
                                    "ws": self.frame_after(changed_ns / 1e9, index, lamp["on"])})
                time.sleep(0.05)
        finally:
            control.close()
        return {"dom_ms": summary([s["dom"] for s in samples]), "frame_ms": summary([s["frame"] for s in samples]),
                "ws_frame_ms": summary([s["ws"] for s in samples if s["ws"] is not None]), "misses": misses}

    def frames(self, cdp, sid):
        """RATE value changes a second at the accessories for SECONDS s, round robin over the lamps."""
        control = Control(self.args.control)
        lamps = self.lamps()
        cdp.evaluate(sid, "Object.assign(window.__frames, {on: true, last: 0, maxGap: 0, over50: 0, frames: 0,"
                          " loafMax: 0, loafOver50: 0}); window.__changes = 0; true")
        # Counts the tiles the page redraws (each change it shows replaces a tile).
        cdp.evaluate(sid, "new MutationObserver((l) => { for (const m of l) for (const n of m.addedNodes)"
                          " if (n.classList && n.classList.contains('tile')) window.__changes++; })"
                          ".observe(document.getElementById('homes'), {childList: true, subtree: true}); true")
        total = int(self.args.rate * self.args.seconds)
        interval = 1 / self.args.rate
        start = time.monotonic()
        sent = 0
        late = 0
        try:
            for i in range(total):
                due = start + i * interval
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                elif now - due > 0.05:
                    late += 1
                lamp = lamps[i % len(lamps)]
                round_ = i // len(lamps)
                if "brightnessIID" in lamp and round_ % 2 == 1:
                    control.set(lamp["aid"], lamp["brightnessIID"], 10 + (i * 7) % 90)
                else:
                    control.set(lamp["aid"], lamp["onIID"], round_ % 2 == 0 if "brightnessIID" not in lamp
                                else round_ % 4 == 0)
                sent += 1
            elapsed = time.monotonic() - start
            time.sleep(1.0)
        finally:
            control.close()
        result = json.loads(cdp.evaluate(sid, "window.__frames.on = false; JSON.stringify(window.__frames)"))
        result.update(changes_sent=sent, send_seconds=round(elapsed, 2), sent_late=late,
                      tiles_redrawn=cdp.evaluate(sid, "window.__changes"))
        return result


class Control:
    """hearth-sim's control socket: `set AID IID JSON` answers `ok T_NS`."""

    def __init__(self, hostport):
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")

    def set(self, aid, iid, value):
        self.sock.sendall(f"set {aid} {iid} {json.dumps(value)}\n".encode())
        answer = self.file.readline().decode().strip()
        if not answer.startswith("ok"):
            raise RuntimeError(f"control: {answer}")
        return int(answer.split()[1])

    def close(self):
        self.file.close()
        self.sock.close()


# ---------------------------------------------------------------- setup and report
def setup(args):
    hub = Hub(args.url, open(args.token_file).read().strip())
    status, body = hub.call("POST", "/v1/homes", {"name": "Bench Home"})
    if status != 201:
        raise RuntimeError(f"create home: {status} {body}")
    home = body["home"]["id"]
    host, port = args.accessory.rsplit(":", 1)
    started = time.monotonic()
    status, body = hub.call("POST", f"/v1/homes/{home}/accessories",
                            {"host": host, "port": int(port), "setupCode": args.pin})
    if status != 201:
        raise RuntimeError(f"pairing: {status} {body}")
    pairing_s = round(time.monotonic() - started, 2)
    rooms = []
    for i in range(args.rooms):
        status, body = hub.call("POST", f"/v1/homes/{home}/rooms", {"name": f"Room {i + 1}"})
        if status != 201:
            raise RuntimeError(f"room: {status} {body}")
        rooms.append(body["room"]["id"])
    accessories = hub.call("GET", f"/v1/homes/{home}/accessories")[1]["accessories"]
    lamps = []
    for index, accessory in enumerate(accessories):
        hub.call("PATCH", f"/v1/homes/{home}/accessories/{accessory['id']}", {"roomID": rooms[index % len(rooms)]})
        lamp = {"accessoryID": accessory["id"], "name": accessory["name"], "aid": accessory.get("accessoryInstanceID")}
        for service in accessory.get("services", []):
            for characteristic in service.get("characteristics", []):
                kind = short(characteristic["type"])
                if kind == ON:
                    lamp.update(on=characteristic["id"], onIID=characteristic["instanceID"])
                elif kind == BRIGHTNESS:
                    lamp.update(brightness=characteristic["id"], brightnessIID=characteristic["instanceID"])
        lamps.append(lamp)
    out = {"home": home, "tiles": len(accessories), "rooms": len(rooms), "pairing_s": pairing_s, "lamps": lamps}
    json.dump(out, open(args.out, "w"), indent=1)
    print(f"home {home}: {len(accessories)} accessories in {len(rooms)} rooms, paired in {pairing_s} s")


def run(args):
    hub = Hub(args.url, open(args.token_file).read().strip())
    setup_ = json.load(open(args.setup))
    os.makedirs(args.work, exist_ok=True)
    results = []
    for index in range(1, args.runs + 1):
        result = Run(args, hub, setup_, index).go()
        results.append(result)
        print(json.dumps({k: result.get(k) for k in ("run", "requests", "enc", "tiles_all_ms", "tiles", "heap_used",
                                                     "load_ms", "fcp_ms")}), flush=True)
        json.dump(results, open(args.out, "w"), indent=1)
        time.sleep(1)
    last = results[-1]
    for key in ("api", "accessory", "frames"):
        print(key, json.dumps(last.get(key)), flush=True)


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def report(args):
    hearth = json.load(open(args.hearth))
    ha = json.load(open(args.ha)) if args.ha and os.path.exists(args.ha) else None
    last = hearth[-1]

    def hh(key, scale=1.0):
        m = median([r.get(key) for r in hearth])
        return None if m is None else m * scale

    def ha_(path, scale=1.0):
        if not ha:
            return None
        values = []
        for r in ha:
            v = r
            for p in path:
                v = v.get(p) if isinstance(v, dict) else None
            if v is not None:
                values.append(v)
        m = median(values)
        return None if m is None else m * scale

    def live(doc, *path):
        for p in path:
            doc = doc.get(p) if isinstance(doc, dict) else None
        return doc

    ha_live = ha[-1].get("live", {}).get("summary", {}) if ha else {}
    rows = [
        ("HTTP requests, cold load", hh("requests"), ha_(["page_http", "requests"]), "< 15", "{:.0f}"),
        ("transferred, cold load (kB)", hh("enc", 1e-3), ha_(["page_http", "enc"], 1e-3), "< 150", "{:.1f}"),
        ("decoded (kB)", hh("dec", 1e-3), ha_(["page_http", "dec"], 1e-3), "", "{:.1f}"),
        ("load event (ms)", hh("load_ms"), ha_(["nav_timing", "loadEventStart"]), "", "{:.0f}"),
        ("first contentful paint (ms)", hh("fcp_ms"), ha_(["lifecycle_ms", "firstContentfulPaint"]), "", "{:.0f}"),
        ("all 150 tiles / rows rendered (ms)", hh("tiles_all_ms"), ha_(["cards_all_ms"]), "< 300", "{:.0f}"),
        ("network idle (ms)", hh("network_idle_ms"), ha_(["page_http", "last_end_ms"]), "", "{:.0f}"),
        ("JS heap used after idle (MB)", hh("heap_used", 1e-6), ha_(["perf_metrics", "JSHeapUsedSize"], 1e-6), "< 5",
         "{:.1f}"),
        ("DOM nodes", hh("nodes"), ha_(["perf_metrics", "Nodes"]), "", "{:.0f}"),
        ("Chromium RSS (MiB)", hh("chromium_rss_mib"), ha_(["chromium_rss_mib"]), "", "{:.0f}"),
        ("API change -> page, p50 (ms)", live(last, "api", "dom_ms", "p50"),
         live(ha_live, "post_to_dom_ms_epoch", "p50"), "", "{:.2f}"),
        ("API change -> page, p95 (ms)", live(last, "api", "dom_ms", "p95"),
         live(ha_live, "post_to_dom_ms_epoch", "p95"), "< 3", "{:.2f}"),
        ("API change -> next frame, p95 (ms)", live(last, "api", "frame_ms", "p95"),
         live(ha_live, "post_to_raf_ms_epoch", "p95"), "", "{:.2f}"),
        ("API change -> WebSocket frame at the page, p50 (ms)", live(last, "api", "ws_frame_ms", "p50"),
         live(ha_live, "post_to_wsframe_cdp_ms", "p50"), "", "{:.2f}"),
        ("API change: page's own share (listener -> tile), p50 (ms)", live(last, "api", "page_ms", "p50"), None, "",
         "{:.2f}"),
        ("accessory change -> page, p50 (ms)", live(last, "accessory", "dom_ms", "p50"), None, "", "{:.2f}"),
        ("accessory change -> page, p95 (ms)", live(last, "accessory", "dom_ms", "p95"), None, "", "{:.2f}"),
        ("accessory change -> page, p99 (ms)", live(last, "accessory", "dom_ms", "p99"), None, "< 10", "{:.2f}"),
        ("accessory change -> WebSocket frame, p50 (ms)", live(last, "accessory", "ws_frame_ms", "p50"), None, "",
         "{:.2f}"),
        ("longest frame, 100 changes/s (ms)", live(last, "frames", "maxGap"), None, "<= 50", "{:.1f}"),
        ("frames over 50 ms, 100 changes/s", live(last, "frames", "over50"), None, "0", "{:.0f}"),
        ("long animation frames (over 50 ms) reported", live(last, "frames", "loafOver50"), None, "0", "{:.0f}"),
    ]
    print(f"Hearth: {len(hearth)} cold runs (medians); live figures from the last run"
          + (f". Home Assistant: {len(ha)} cold runs, same definitions" if ha else ". Home Assistant: not run"))
    print()
    print("| figure | Hearth | Home Assistant | Hearth / HA | target |")
    print("|---|---|---|---|---|")
    for label, mine, theirs, target, fmt in rows:
        ratio = f"{mine / theirs:.3f}" if mine is not None and theirs else "—"
        print(f"| {label} | {fmt.format(mine) if mine is not None else '—'} | "
              f"{fmt.format(theirs) if theirs is not None else '—'} | {ratio} | {target} |")
    for key in ("api", "accessory"):
        print(f"\n{key}: misses {live(last, key, 'misses')}; DOM {json.dumps(live(last, key, 'dom_ms'))}")
    print(f"frames: {json.dumps(last.get('frames'))}")
    print("Hearth's requests (last run; status, bytes, start-end ms):",
          ", ".join(f"{r[0][:24]} {r[1]} {r[2]} B {r[4]}-{r[5]}" for r in last.get("by_url", [])))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="step", required=True)
    s = sub.add_parser("setup")
    s.add_argument("--url", required=True)
    s.add_argument("--token-file", required=True)
    s.add_argument("--accessory", required=True)
    s.add_argument("--pin", required=True)
    s.add_argument("--rooms", type=int, default=5)
    s.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--url", required=True)
    r.add_argument("--token-file", required=True)
    r.add_argument("--control", required=True)
    r.add_argument("--setup", required=True)
    r.add_argument("--runs", type=int, default=5)
    r.add_argument("--updates", type=int, default=20)
    r.add_argument("--accessory-updates", type=int, default=200)
    r.add_argument("--rate", type=float, default=100)
    r.add_argument("--seconds", type=float, default=10)
    r.add_argument("--devtools-port", type=int, default=9333)
    r.add_argument("--work", required=True)
    r.add_argument("--shot", default="")
    r.add_argument("--out", required=True)
    p = sub.add_parser("report")
    p.add_argument("hearth")
    p.add_argument("ha", nargs="?")
    args = parser.parse_args()
    {"setup": setup, "run": run, "report": report}[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
