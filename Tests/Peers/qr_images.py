"""PNG pictures of QR codes for the page's QR reading checks, made without third-party code.

The modules come from the hub's own encoder (`GET /app/qr.svg?text=`, SetupQR's symbol as one SVG path of unit
squares with a quiet zone of 4); `picture` draws them scaled, turned and with modules flipped, and `png` writes the
pixels with zlib and struct.
"""

import math
import re
import struct
import urllib.parse
import urllib.request
import zlib


def modules(url, text):
    """SetupQR's symbol for `text` as rows of booleans (True: dark), read from the hub's SVG."""
    with urllib.request.urlopen(url + "/app/qr.svg?text=" + urllib.parse.quote(text), timeout=20) as response:
        svg = response.read().decode()
    side = int(re.search(r'viewBox="0 0 (\d+)', svg).group(1))
    size = side - 8
    rows = [[False] * size for _ in range(size)]
    for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", svg):
        rows[int(y) - 4][int(x) - 4] = True
    return rows


def payload(code, setup_id="HRTH", category=5):
    """A HomeKit setup payload (X-HM://, 9 base-36 characters, the setup ID) for a code like 123-45-678."""
    value = (category << 31) | (1 << 28) | int(code.replace("-", ""))
    digits = ""
    for _ in range(9):
        value, digit = divmod(value, 36)
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[digit] + digits
    return "X-HM://" + digits + setup_id


def picture(rows, scale, degrees=0.0, flipped=(), margin=12, shade=0.0):
    """Grey levels of the symbol at `scale` pixels a module (any positive number), turned by `degrees` about its
    centre, with the modules at `flipped` (x, y) inverted; a quiet zone of 4 modules and `margin` pixels around; with
    `shade` above 0, darker to the right (the right edge at 1 - shade of the light), as under a lamp to the left."""
    size = len(rows)
    flips = set(flipped)
    side = (size + 8) * scale
    angle = math.radians(degrees)
    cos, sin = math.cos(angle), math.sin(angle)
    out = int(math.ceil(side * (abs(cos) + abs(sin)))) + 2 * margin
    pixels = []
    for y in range(out):
        line = bytearray(out)
        for x in range(out):
            dx, dy = x + 0.5 - out / 2, y + 0.5 - out / 2
            u = (dx * cos + dy * sin + side / 2) / scale - 4
            v = (-dx * sin + dy * cos + side / 2) / scale - 4
            mx, my = math.floor(u), math.floor(v)
            dark = 0 <= mx < size and 0 <= my < size and (rows[my][mx] != ((mx, my) in flips))
            line[x] = int((24 if dark else 232) * (1 - shade * x / out))
        pixels.append(line)
    return pixels


def _projective(source, target):
    """The projective map taking the four points `source` to `target`, as a function of (x, y)."""
    rows = []
    for (u, v), (x, y) in zip(source, target):
        rows.append([u, v, 1, 0, 0, 0, -u * x, -v * x, x])
        rows.append([0, 0, 0, u, v, 1, -u * y, -v * y, y])
    for column in range(8):
        pivot = max(range(column, 8), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(8):
            if r != column:
                factor = rows[r][column] / rows[column][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column])]
    h = [rows[i][8] / rows[i][i] for i in range(8)]

    def apply(u, v):
        w = h[6] * u + h[7] * v + 1
        return (h[0] * u + h[1] * v + h[2]) / w, (h[3] * u + h[4] * v + h[5]) / w

    return apply


def at_an_angle(rows, side=300, keystone=0.25, margin=20):
    """Grey levels of the symbol (with its quiet zone) as a camera sees a label tilted away at the top: a square of
    `side` pixels whose top edge is `keystone` narrower than its bottom and a little lower on the right."""
    size = len(rows)
    inset = side * keystone / 2
    corners = [(margin + inset, margin), (margin + side - inset, margin + side * 0.05),
               (margin + side, margin + side), (margin, margin + side * 0.97)]
    to_module = _projective(corners, [(0, 0), (size + 8, 0), (size + 8, size + 8), (0, size + 8)])
    out = side + 2 * margin
    pixels = []
    for y in range(out):
        line = bytearray(out)
        for x in range(out):
            u, v = to_module(x + 0.5, y + 0.5)
            mx, my = math.floor(u) - 4, math.floor(v) - 4
            line[x] = 24 if 0 <= mx < size and 0 <= my < size and rows[my][mx] else 232
        pixels.append(line)
    return pixels


def no_code(width=320, height=240):
    """Grey levels of a picture with no QR code in it: a gradient with stripes and a dark square."""
    pixels = []
    for y in range(height):
        line = bytearray(width)
        for x in range(width):
            value = 60 + (x * 150) // width
            if (x // 9) % 3 == 0 and y > height // 2:
                value = 20
            if 40 < x < 100 and 30 < y < 90:
                value = 10
            line[x] = value
        pixels.append(line)
    return pixels


def png(pixels, path):
    """Writes grey levels (rows of bytes) as an 8-bit greyscale PNG."""
    height, width = len(pixels), len(pixels[0])

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(line) for line in pixels)
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n")
        file.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        file.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        file.write(chunk(b"IEND", b""))
    return path


def y4m(pixels, path, width=640, height=480, frames=5):
    """Writes grey levels as a Y4M video (4:2:0, 5 frames a second, the picture centred on grey), for Chromium's fake
    camera (--use-file-for-fake-video-capture)."""
    top = (height - len(pixels)) // 2
    left = (width - len(pixels[0])) // 2
    luma = bytearray([200]) * (width * height)
    for y, line in enumerate(pixels):
        if 0 <= top + y < height:
            start = (top + y) * width + max(0, left)
            part = bytes(line[max(0, -left):max(0, -left) + width - max(0, left)])
            luma[start:start + len(part)] = part
    chroma = bytes([128]) * ((width // 2) * (height // 2) * 2)
    with open(path, "wb") as file:
        file.write(f"YUV4MPEG2 W{width} H{height} F5:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            file.write(b"FRAME\n" + bytes(luma) + chroma)
    return path
