#!/usr/bin/env python3
"""pyhap_lights.py - a HAP-python 5.0.0 bridge of N lightbulbs, for scripts/bench-simulator.sh.

The comparison peer for hearth-sim: the same accessory set (a bridge with N lightbulbs, On only like hearth-sim's
`lightbulb` preset, or with Brightness like `lightbulb-dimmable`), served by HAP-python as shipped. It never
advertises over mDNS (the advertiser is replaced by one that does nothing), so it only listens on the --address
it is given (loopback or a test namespace address).

    pyhap_lights.py --address 127.0.0.1 --port 51826 --pincode 031-45-154 --state-file DIR/pyhap.state \
        [--lights 1] [--dimmable] [--coalesce-seconds S]

Once listening it prints one line `READY {"pid": ..., "port": ...}` on stdout. SIGTERM stops it.
"""
import argparse
import asyncio
import json
import os
import signal

import pyhap.hap_protocol
from pyhap.accessory import Accessory, Bridge
from pyhap.accessory_driver import AccessoryDriver
from pyhap.const import CATEGORY_LIGHTBULB


class SilentZeroconf:
    """Takes the place of AsyncZeroconf: registers nothing, sends nothing."""

    async def async_register_service(self, *args, **kwargs):
        return None

    async def async_update_service(self, *args, **kwargs):
        return None

    async def async_unregister_service(self, *args, **kwargs):
        return None

    async def async_close(self):
        return None


class Lightbulb(Accessory):
    """A lightbulb: the Lightbulb service with On, and Brightness when dimmable."""

    category = CATEGORY_LIGHTBULB

    def __init__(self, *args, dimmable=False, **kwargs):
        super().__init__(*args, **kwargs)
        service = self.add_preload_service("Lightbulb", chars=["Brightness"] if dimmable else None)
        service.configure_char("On", value=False)
        if dimmable:
            service.configure_char("Brightness", value=100)


async def announce_when_listening(driver, port):
    while driver.http_server is None or driver.http_server.server is None:
        await asyncio.sleep(0.01)
    print("READY " + json.dumps({"pid": os.getpid(), "port": port}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=51826)
    parser.add_argument("--pincode", default="031-45-154")
    parser.add_argument("--state-file", required=True)
    parser.add_argument("--lights", type=int, default=1)
    parser.add_argument("--dimmable", action="store_true", help="lightbulbs with Brightness (default: On only)")
    parser.add_argument("--coalesce-seconds", type=float, default=None,
                        help="event coalescing window (HAP-python's default: 0.5)")
    args = parser.parse_args()
    if args.coalesce_seconds is not None:
        pyhap.hap_protocol.EVENT_COALESCE_TIME_WINDOW = args.coalesce_seconds

    driver = AccessoryDriver(
        address=args.address,
        port=args.port,
        persist_file=args.state_file,
        pincode=args.pincode.encode(),
        async_zeroconf_instance=SilentZeroconf(),
    )
    bridge = Bridge(driver, "PyHAP Lights")
    for number in range(1, args.lights + 1):
        bridge.add_accessory(Lightbulb(driver, f"Light {number}", dimmable=args.dimmable))
    driver.add_accessory(bridge)
    signal.signal(signal.SIGTERM, lambda *_: driver.stop())
    driver.loop.call_soon(lambda: driver.loop.create_task(announce_when_listening(driver, args.port)))
    driver.start()


if __name__ == "__main__":
    main()
