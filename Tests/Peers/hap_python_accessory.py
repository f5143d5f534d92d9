#!/usr/bin/env python3
"""A HAP-python 5.0.0 bridge for Hearth's controller tests: two lights, a lock and a temperature sensor.

Run it inside the accessory's network namespace; mDNS (python-zeroconf) is bound to --address only.
Prints one JSON line when listening: {"ready": true, "deviceID", "port", "characteristics": {name: "aid.iid"}}.
Then reads commands from stdin, one per line, and answers one JSON line each:
  set NAME JSON-VALUE   change a value on the accessory side (as the device itself would): {"ok": true}
  get NAME              {"value": ...}
"""
import argparse
import asyncio
import json
import os
import signal
import sys

from pyhap.accessory import Accessory, Bridge
from pyhap.accessory_driver import AccessoryDriver
from pyhap.const import CATEGORY_DOOR_LOCK, CATEGORY_LIGHTBULB, CATEGORY_SENSOR
from zeroconf.asyncio import AsyncZeroconf


class Lamp(Accessory):
    category = CATEGORY_LIGHTBULB

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        service = self.add_preload_service("Lightbulb", chars=["Brightness"])
        self.on = service.configure_char("On", value=False)
        self.brightness = service.configure_char("Brightness", value=50)


class Lock(Accessory):
    category = CATEGORY_DOOR_LOCK

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        service = self.add_preload_service("LockMechanism")
        self.current = service.configure_char("LockCurrentState", value=1)
        self.target = service.configure_char("LockTargetState", value=1, setter_callback=self.current.set_value)


class Thermometer(Accessory):
    category = CATEGORY_SENSOR

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        service = self.add_preload_service("TemperatureSensor")
        self.temperature = service.configure_char("CurrentTemperature", value=21.0)


def main():
    # A child of the Swift test runner inherits its blocked SIGTERM; unblock it so the test can stop us.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, default=51827)
    parser.add_argument("--pin", default="031-45-154")
    parser.add_argument("--state-file", required=True)
    parser.add_argument("--device-id", default="AA:BB:CC:00:11:22")
    args = parser.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.state_file)), exist_ok=True)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    zeroconf = AsyncZeroconf(interfaces=[args.address])
    driver = AccessoryDriver(
        address=args.address,
        port=args.port,
        persist_file=args.state_file,
        pincode=args.pin.encode(),
        mac=args.device_id,
        async_zeroconf_instance=zeroconf,
        loop=loop,
    )
    bridge = Bridge(driver, "PyHAP Bridge")
    desk, hall = Lamp(driver, "Desk Lamp"), Lamp(driver, "Hall Lamp")
    lock, thermometer = Lock(driver, "Front Door"), Thermometer(driver, "Hall Thermometer")
    for accessory in (desk, hall, lock, thermometer):
        bridge.add_accessory(accessory)
    driver.add_accessory(bridge)
    characteristics = {
        "desk.on": desk.on, "desk.brightness": desk.brightness, "hall.on": hall.on,
        "lock.current": lock.current, "lock.target": lock.target, "temperature": thermometer.temperature,
    }

    def where(characteristic):
        accessory = characteristic.service.broker
        return f"{accessory.aid}.{accessory.iid_manager.get_iid(characteristic)}"

    async def commands():
        for _ in range(500):
            if driver.http_server and driver.http_server.server is not None:
                break
            await asyncio.sleep(0.01)
        print(json.dumps({"ready": True, "deviceID": args.device_id, "port": args.port,
                          "characteristics": {name: where(c) for name, c in characteristics.items()}}), flush=True)
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := await reader.readline():
            words = line.decode().split(maxsplit=2)
            try:
                if words[0] == "set":
                    characteristics[words[1]].set_value(json.loads(words[2]))
                    print(json.dumps({"ok": True}), flush=True)
                elif words[0] == "get":
                    print(json.dumps({"value": characteristics[words[1]].get_value()}), flush=True)
            except Exception as error:  # answered, so the test sees it
                print(json.dumps({"error": repr(error)}), flush=True)
        driver.stop()

    # Keep a reference: asyncio holds tasks only weakly, and the garbage collector would end this one mid-test.
    command_task = loop.create_task(commands())
    driver.start()
    command_task.cancel()


if __name__ == "__main__":
    main()
