"""Adds a nearby hearth-sim accessory through hearthd's web page in headless Chromium (through Selenium).

Run by Tests/HubServerTests/WebPagePairingTests.swift inside the network namespace of a `hearthd --demo
--interface ADDRESS` (started with `ip netns exec`, so Chromium and its driver live there too; mDNS never reaches
the machine's real interfaces):

    pair_page_check.py --url URL --state STATE --sim-state SIM_STATE --hearth-sim HEARTH_SIM --code CODE

Writes one JSON object per line on stdout: {"check": NAME, "ok": BOOL, "detail": TEXT} for each check;
{"simulator": "start"} or {"simulator": "stop"} when it wants the test to start hearth-sim advertising in the other
namespace or to stop it (it then reads one line from stdin, sent once that is done: after a start, hearth-sim's JSON
banner, whose setupURI it pairs with through a picture of its QR code); {"done": true} at the end.

The setup code field is filled from PNG pictures of QR codes given to the form's file input (made by qr_images.py
from the hub's own encoder): plain, scaled, with damaged modules, turned, at an angle, in uneven light, not a HomeKit
code, and no code at all; and
from Chromium's fake camera playing a video of a QR code (the page's origin is treated as secure for it).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_page_check import API, browser, check, emit, sign_in, tile, wait  # noqa: E402
import qr_images  # noqa: E402


def simulator(action):
    """Asks the test to start or stop hearth-sim; after a start, its banner (a dict)."""
    emit({"simulator": action})
    line = sys.stdin.readline().strip()
    return json.loads(line) if line.startswith("{") else {}


def read_picture(driver, path):
    """Gives the picture to the form's file input; the setup code field and the status sentence once it is read."""
    code = driver.find_element(By.ID, "setup-code")
    code.clear()
    status = driver.find_element(By.CSS_SELECTOR, "#pair p[role=status]")
    driver.execute_script("arguments[0].textContent = ''", status)
    driver.find_element(By.ID, "setup-photo").send_keys(path)
    said = wait(driver, lambda d: (t := status.text) and t != "Reading the QR code…" and t, 20)
    return code.get_attribute("value"), said


def qr_pictures(driver, url, folder):
    """The checks of the setup code read from pictures; each picture's code differs, so a stale field shows."""
    def picture(name, text, scale, degrees=0.0, flipped=()):
        rows = qr_images.modules(url, text)
        return qr_images.png(qr_images.picture(rows, scale, degrees, flipped), os.path.join(folder, name)), rows

    path, _ = picture("plain.png", qr_images.payload("123-45-678"), 6)
    value, said = read_picture(driver, path)
    check("a label's QR code in a photo fills the setup code", value == "123-45-678"
          and said == "Setup code read from the QR code.", f"{value!r} {said!r}")

    path, _ = picture("scaled.png", qr_images.payload("234-56-789"), 3.3)
    small, said_small = read_picture(driver, path)
    path, _ = picture("large.png", qr_images.payload("345-67-890"), 17.6)
    large, said_large = read_picture(driver, path)
    check("a scaled photo of the QR code is read", small == "234-56-789" and large == "345-67-890",
          f"{small!r} {said_small!r}; {large!r} {said_large!r}")

    # A 3 by 3 square of data modules inverted, bottom right (a few codewords): Reed–Solomon restores them.
    rows = qr_images.modules(url, qr_images.payload("456-78-901"))
    size = len(rows)
    square = [(x, y) for x in range(size - 5, size - 2) for y in range(size - 5, size - 2)]
    path = qr_images.png(qr_images.picture(rows, 6, 0, square), os.path.join(folder, "damaged.png"))
    value, said = read_picture(driver, path)
    # Far more damage than the code can correct: no code is read, and nothing wrong fills the field.
    wrecked = [(x, y) for x in range(9, size) for y in range(9, size) if (x * 7 + y * 3) % 5 == 0]
    path = qr_images.png(qr_images.picture(rows, 6, 0, wrecked), os.path.join(folder, "wrecked.png"))
    wrecked_value, wrecked_said = read_picture(driver, path)
    check("a QR code with damaged modules is corrected", value == "456-78-901" and wrecked_value == ""
          and wrecked_said == "No QR code found in this image.",
          f"{value!r} {said!r}; too damaged: {wrecked_value!r} {wrecked_said!r}")

    path, _ = picture("quarter.png", qr_images.payload("567-89-012"), 5, 90)
    quarter, said_quarter = read_picture(driver, path)
    path, _ = picture("tilted.png", qr_images.payload("678-90-123"), 6, -17)
    tilted, said_tilted = read_picture(driver, path)
    check("a turned QR code is read", quarter == "567-89-012" and tilted == "678-90-123",
          f"90°: {quarter!r} {said_quarter!r}; -17°: {tilted!r} {said_tilted!r}")

    # A label photographed at an angle: a version 1 code (no alignment pattern), and a version 2 one (the payload
    # in lower case needs byte mode, which the page takes as well).
    rows = qr_images.modules(url, qr_images.payload("901-23-456"))
    path = qr_images.png(qr_images.at_an_angle(rows), os.path.join(folder, "angle1.png"))
    first, said_first = read_picture(driver, path)
    rows = qr_images.modules(url, qr_images.payload("012-34-567").lower())
    path = qr_images.png(qr_images.at_an_angle(rows), os.path.join(folder, "angle2.png"))
    second, said_second = read_picture(driver, path)
    check("a QR code photographed at an angle is read", first == "901-23-456" and second == "012-34-567"
          and len(rows) == 25, f"{first!r} {said_first!r}; {second!r} {said_second!r}; {len(rows)} modules")

    # Lit from the left: the right edge's light is darker than the left edge's dark, so no one threshold works.
    rows = qr_images.modules(url, qr_images.payload("890-12-345"))
    path = qr_images.png(qr_images.picture(rows, 6, shade=0.85), os.path.join(folder, "shaded.png"))
    value, said = read_picture(driver, path)
    check("a QR code in uneven light is read", value == "890-12-345", f"{value!r} {said!r}")

    path, _ = picture("other.png", "https://example.com/hearth", 6)
    value, said = read_picture(driver, path)
    check("a QR code that is not a HomeKit code says so", value == ""
          and said == "This QR code is not a HomeKit setup code.", f"{value!r} {said!r}")

    path = qr_images.png(qr_images.no_code(), os.path.join(folder, "none.png"))
    value, said = read_picture(driver, path)
    check("a picture without a QR code says so", value == "" and said == "No QR code found in this image.",
          f"{value!r} {said!r}")


def nearby(driver):
    """The nearby list's entries as (device id, text)."""
    items = driver.find_elements(By.CSS_SELECTOR, "#nearby li[data-device-id]")
    return [(item.get_attribute("data-device-id"), item.text) for item in items]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--sim-state", required=True)
    parser.add_argument("--hearth-sim", required=True)
    parser.add_argument("--code", required=True)
    args = parser.parse_args()
    with open(os.path.join(args.state, "owner.token")) as file:
        owner_token = file.read().strip()
    owner = API(args.url, owner_token)
    _, homes = owner.call("GET", "/v1/homes")
    home_id = homes["homes"][0]["id"]

    def accessory_names():
        _, answer = owner.call("GET", f"/v1/homes/{home_id}/accessories")
        return sorted(accessory["name"] for accessory in answer["accessories"])

    folder = tempfile.mkdtemp(prefix="pair-page-check-")
    camera = qr_images.y4m(qr_images.picture(qr_images.modules(args.url, qr_images.payload("789-01-234")), 5, 8),
                           os.path.join(folder, "camera.y4m"))
    driver = browser([
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        "--use-file-for-fake-video-capture=" + camera, "--unsafely-treat-insecure-origin-as-secure=" + args.url,
    ])
    try:
        driver.get(args.url + "/")
        signed_in = sign_in(driver, owner_token)
        tab = wait(driver, lambda d: d.find_element(By.ID, "add-tab") if d.find_element(By.ID, "add-tab").is_displayed() else None)
        check("the owner has an Add accessory view", signed_in and tab is not None)
        if tab is None:
            return
        tab.click()
        empty = wait(driver, lambda d: d.find_element(By.ID, "add").is_displayed()
                     and "Looking for accessories" in d.find_element(By.ID, "nearby").text)

        # The page is open and shows nothing nearby; the simulator starts advertising: the hub's push shows it.
        banner = simulator("start")
        found = wait(driver, lambda d: [item for item in nearby(d) if item[1].startswith("Porch Lamp")] or None, 30)
        check("a nearby accessory appears with its category", empty and found and "Lightbulb" in found[0][1],
              f"{found} (empty first: {bool(empty)})")
        if not found:
            return
        device_id = found[0][0]

        # It stops advertising: it leaves the list, without a reload.
        simulator("stop")
        gone = wait(driver, lambda d: all(item[0] != device_id for item in nearby(d)), 30)
        check("an accessory that stops advertising disappears", gone, nearby(driver))
        banner = simulator("start") or banner
        back = wait(driver, lambda d: any(item[0] == device_id for item in nearby(d)), 30)
        check("it appears again when it advertises again", back, nearby(driver))

        # Choose it; a wrong code shows the hub's sentence and adds nothing.
        before = accessory_names()
        driver.find_element(By.CSS_SELECTOR, f'#nearby li[data-device-id="{device_id}"] button').click()
        code = wait(driver, lambda d: d.find_element(By.ID, "setup-code"))
        photo = driver.find_elements(By.CSS_SELECTOR, "#pair input[type=file]#setup-photo")
        labelled = driver.find_elements(By.CSS_SELECTOR, '#pair label[for="setup-photo"]')
        check("a photo of the QR code can be given", photo and labelled, "")
        qr_pictures(driver, args.url, folder)
        code.clear()
        driver.find_element(By.CSS_SELECTOR, "#pair button.scan-camera").click()
        filmed = wait(driver, lambda d: d.find_element(By.ID, "setup-code").get_attribute("value") or None, 20)
        check("the camera reads a QR code", filmed == "789-01-234",
              f"{filmed!r} {driver.find_element(By.CSS_SELECTOR, '#pair p[role=status]').text!r}")
        # The simulator's own setup payload, as its label would show it.
        uri = banner.get("setupURI", "")
        real = None
        if uri:
            real = qr_images.png(qr_images.picture(qr_images.modules(args.url, uri), 5), os.path.join(folder, "sim.png"))
        from_label = read_picture(driver, real) if real else (None, None)
        code.clear()
        Select(driver.find_element(By.ID, "pair-room")).select_by_visible_text("Kitchen")
        name = driver.find_element(By.ID, "pair-name")
        name.clear()
        name.send_keys("Porch Lamp")
        code.send_keys("111-22-333")
        driver.find_element(By.CSS_SELECTOR, "#pair button[type=submit]").click()
        error = wait(driver, lambda d: d.find_element(By.ID, "pair-error").text or None, 30)
        check("a wrong setup code shows the hub's sentence and changes nothing",
              error and "setup code" in error.lower() and accessory_names() == before, f"{error!r}")

        # The right code, read from the simulator's QR code: paired into the kitchen and shown as a tile there.
        code.clear()
        if real:
            read_picture(driver, real)
        check("the accessory's own QR code gives its setup code", from_label[0] == args.code
              and code.get_attribute("value") == args.code, f"{uri!r}: {from_label}")
        driver.find_element(By.CSS_SELECTOR, "#pair button[type=submit]").click()
        # Read in the page, in one go: the home is redrawn as the pairing's changes arrive.
        room_of = """const tile = document.querySelector('article.tile[data-name="Porch Lamp"]');
            return tile ? tile.closest('section.room')?.querySelector('h3')?.textContent ?? '' : null;"""
        room = wait(driver, lambda d: d.execute_script(room_of) == "Kitchen" or None, 60)
        check("pairing with the code from its QR code adds it as a tile in the room", room,
              f"room {driver.execute_script(room_of)!r}; "
              f"{[e.text for e in driver.find_elements(By.ID, 'pair-error')]}; {accessory_names()}")
        if not room:
            return

        # The tile controls the accessory: the simulator's value follows.
        def simulated_on():
            read = subprocess.run([args.hearth_sim, "get", "--state", args.sim_state, "--json", "1", "on"],
                                  capture_output=True, text=True, timeout=20)
            return "true" in read.stdout

        was_on = simulated_on()
        wait(driver, lambda d: tile(d, "Porch Lamp").find_element(By.CSS_SELECTOR, "button.toggle").click() or True)
        on = wait(driver, lambda d: simulated_on(), 15, 0.2)
        check("the paired accessory is controllable", on and not was_on, f"on before: {was_on}")
        driver.find_element(By.ID, "add-tab").click()
        listed = wait(driver, lambda d: all(item[0] != device_id for item in nearby(d)), 10)
        check("a paired accessory is no longer offered", listed, nearby(driver))
    except Exception:  # reported, so the test shows why the remaining checks are missing
        check("the driver ran to its end", False, traceback.format_exc()[-2000:])
    finally:
        driver.quit()
        shutil.rmtree(folder, ignore_errors=True)
        emit({"done": True})


if __name__ == "__main__":
    main()
