"""Runs the page's QR decoder (`/app/qr.js`) in headless Chromium on symbols made by SetupQR.

Run by Tests/HubServerTests/WebPageQRDecoderTests.swift against a running `hearthd --demo`:

    qr_decoder_check.py --url URL --cases CASES.json

CASES.json is a list of {"text", "level" (L, M, Q, H), "version", "mask", "mode", "modules": rows of "0"/"1"}. For
each symbol the page's module decodes its modules as given, reads it from a canvas drawing (3 to 5 pixels a module,
turned by 0, 90, 180, 270, 8 or -12 degrees), and, for levels Q and H, decodes it with a 3 by 3 square of modules
inverted (Reed–Solomon must restore them). Writes one JSON line per check, then {"done": true}.
"""

import argparse
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_page_check import browser, check, emit  # noqa: E402

DECODE = """
const cases = arguments[0];
const done = arguments[arguments.length - 1];
import("/app/qr.js").then(({ decodeModules, readQRCode }) => {
  done(cases.map((symbol, n) => {
    const size = symbol.modules.length;
    const dark = (x, y) => symbol.modules[y][x] === "1";
    const modules = decodeModules(dark, symbol.version);
    let damaged = null;
    if (symbol.level === "Q" || symbol.level === "H") {
      const hit = (x, y) => x >= size - 5 && x < size - 2 && y >= size - 5 && y < size - 2;
      damaged = decodeModules((x, y) => dark(x, y) !== hit(x, y), symbol.version);
    }
    // One pixel a module, then drawn scaled without smoothing onto a turned canvas.
    const small = document.createElement("canvas");
    small.width = small.height = size + 8;
    const pixels = new ImageData(size + 8, size + 8);
    for (let y = 0; y < size + 8; y++) {
      for (let x = 0; x < size + 8; x++) {
        const value = x >= 4 && y >= 4 && x < size + 4 && y < size + 4 && dark(x - 4, y - 4) ? 0 : 255;
        pixels.data.set([value, value, value, 255], 4 * (y * (size + 8) + x));
      }
    }
    small.getContext("2d").putImageData(pixels, 0, 0);
    const scale = 3 + (n % 3);
    const degrees = [0, 90, 180, 270, 8, -12][n % 6];
    const side = (size + 8) * scale;
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = Math.ceil(side * 1.45);
    const context = canvas.getContext("2d", { willReadFrequently: true });
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.translate(canvas.width / 2, canvas.height / 2);
    context.rotate((degrees * Math.PI) / 180);
    context.imageSmoothingEnabled = false;
    context.drawImage(small, -side / 2, -side / 2, side, side);
    const image = readQRCode(context.getImageData(0, 0, canvas.width, canvas.height));
    return { modules, image, damaged, scale, degrees };
  }));
}, (error) => done({ error: String(error) }));
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--cases", required=True)
    args = parser.parse_args()
    with open(args.cases) as file:
        cases = json.load(file)
    driver = browser()
    driver.set_script_timeout(180)
    try:
        driver.get(args.url + "/")
        results = driver.execute_async_script(DECODE, cases)
        if isinstance(results, dict):
            check("the decoder module loads", False, results.get("error"))
            return
        check("the decoder module loads", len(results) == len(cases), f"{len(results)} of {len(cases)}")

        def name(case):
            return f"v{case['version']}-{case['level']} mask {case['mask']} {case['mode']} {case['text'][:24]!r}"

        wrong = [f"{name(c)}: {r['modules']!r}" for c, r in zip(cases, results) if r["modules"] != c["text"]]
        check("every symbol's modules decode to its text", cases and not wrong,
              f"{len(wrong)} of {len(cases)} wrong: {wrong[:5]}")
        wrong = [f"{name(c)} at {r['scale']} px, {r['degrees']}°: {r['image']!r}"
                 for c, r in zip(cases, results) if r["image"] != c["text"]]
        check("every symbol drawn scaled and turned is read", cases and not wrong,
              f"{len(wrong)} of {len(cases)} wrong: {wrong[:5]}")
        damaged = [(c, r) for c, r in zip(cases, results) if c["level"] in ("Q", "H")]
        wrong = [f"{name(c)}: {r['damaged']!r}" for c, r in damaged if r["damaged"] != c["text"]]
        check("damaged Q and H symbols are corrected", damaged and not wrong,
              f"{len(wrong)} of {len(damaged)} wrong: {wrong[:5]}")
        covered = {
            "versions": sorted({c["version"] for c in cases}), "levels": sorted({c["level"] for c in cases}),
            "masks": sorted({c["mask"] for c in cases}), "modes": sorted({c["mode"] for c in cases}),
        }
        check("the symbols cover versions 1 to 10, every level, mask and mode",
              covered["versions"] == list(range(1, 11)) and len(covered["levels"]) == 4
              and covered["masks"] == list(range(8)) and len(covered["modes"]) == 3, covered)
    except Exception:  # reported, so the test shows why the remaining checks are missing
        check("the driver ran to its end", False, traceback.format_exc()[-2000:])
    finally:
        driver.quit()
        emit({"done": True})


if __name__ == "__main__":
    main()
