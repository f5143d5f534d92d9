"""The web page over the hub's own TLS listener, in headless Chromium (Debian's chromium and chromium-driver).

Run by Tests/HubServerTests/WebPageTLSTests.swift against a running `hearthd --demo --tls-address 127.0.0.1`:

    tls_page_check.py --url HTTPS_URL --api PLAIN_URL --state STATE --spki BASE64

`--spki` is the base64 SHA-256 of the certificate's public key: Chromium trusts that key only
(`--ignore-certificate-errors-spki-list`), the way a person trusts the certificate whose fingerprint `hearthd` and
`hearth web` print. Writes one JSON object per line: {"check": NAME, "ok": BOOL, "detail": TEXT}, then
{"done": true}.
"""

import argparse
import os
import time

from selenium.webdriver.common.by import By

import web_page_check
from web_page_check import API, check, emit, sign_in, tile, tile_state, wait


def browser(spki=None):
    """Chromium as the page checks start it, trusting the certificate with public key `spki` (none: no exception)."""
    original = web_page_check.webdriver.ChromeOptions

    def options():
        made = original()
        if spki:
            made.add_argument("--ignore-certificate-errors-spki-list=" + spki)
        return made

    web_page_check.webdriver.ChromeOptions = options
    try:
        return web_page_check.browser()
    finally:
        web_page_check.webdriver.ChromeOptions = original


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--api", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--spki", required=True)
    args = parser.parse_args()
    with open(os.path.join(args.state, "owner.token")) as file:
        owner_token = file.read().strip()
    owner = API(args.api, owner_token)
    home_id = owner.call("GET", "/v1/homes")[1]["homes"][0]["id"]
    lamps = {a["name"]: a for a in owner.call("GET", f"/v1/homes/{home_id}/accessories")[1]["accessories"]}
    bedroom_on = web_page_check.characteristic_id(lamps["Bedroom Lamp"], "25")

    # A browser that does not trust the certificate gets no page: the key is what is trusted, nothing else.
    stranger = browser()
    try:
        try:
            stranger.get(args.url)
        except Exception as error:  # a page load error is the expected outcome
            emit({"note": f"untrusted load: {type(error).__name__}"})
        app = stranger.find_elements(By.ID, "sign-in")
        check("an untrusted certificate shows no page", not app, stranger.title)
    finally:
        stranger.quit()

    driver = browser(args.spki)
    try:
        run_trusted(driver, args, owner, owner_token, home_id, bedroom_on)
    except Exception as error:  # reported as a failed check, so the test names it
        check("the page over TLS", False, f"{type(error).__name__}: {str(error)[:300]}")
    finally:
        driver.quit()
    emit({"done": True})


def run_trusted(driver, args, owner, owner_token, home_id, bedroom_on):
    """The checks in the browser that trusts the certificate's key."""
    driver.get(args.url)
    signed_in = sign_in(driver, owner_token)
    check("sign in over TLS", signed_in, driver.current_url)
    cookies = {c["name"]: c for c in driver.get_cookies()}
    session = next((c for c in cookies.values() if c.get("httpOnly")), None)
    check(
        "the session cookie is Secure, HttpOnly and SameSite=Strict",
        session and session.get("secure") and session.get("sameSite") == "Strict",
        {name: {k: c.get(k) for k in ("secure", "httpOnly", "sameSite")} for name, c in cookies.items()},
    )
    # Live over wss: a change made through the API appears on the page within a second.
    before = tile_state(driver, "Bedroom Lamp") or ""
    target = not before.startswith("On")
    status, _ = owner.call("PUT", f"/v1/homes/{home_id}/characteristics/{bedroom_on}", {"value": target})
    done = time.monotonic()
    shown = wait(
        driver, lambda d: (tile_state(d, "Bedroom Lamp") or "").startswith("On") == target, 1.0, 0.01
    )
    elapsed = time.monotonic() - done
    check("a change appears over wss within a second", status == 200 and shown and elapsed < 1.0,
          f"PUT {status}; shown after {elapsed * 1000:.0f} ms")
    # A tap on the page changes the accessory, over TLS.
    tile(driver, "Bedroom Lamp").find_element(By.CSS_SELECTOR, "button.toggle").click()
    toggled = wait(driver, lambda d: (tile_state(d, "Bedroom Lamp") or "").startswith("On") != target, 5)
    _, body = owner.call("GET", f"/v1/homes/{home_id}/characteristics/{bedroom_on}?refresh=true")
    check("toggle a light over TLS", toggled and body.get("characteristic", {}).get("value") == (not target),
          body)


if __name__ == "__main__":
    main()
