"""The HTML report as a browser draws it: headless Chromium takes a screenshot.

    html_boxes.py VITALS WORK_DIR
A case whose before and after each have one block at about 11x the median: the boxes
must still be drawn wider than a few pixels (the axis spans the whiskers; outliers past
it are counted at its edge), and the tick labels are round values in one unit.
Exit 77 (skipped) without Chromium, unless VITALS_REQUIRE_OUTSIDE_TOOLS is set.
"""
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import zlib


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG, as Chromium writes."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8 or color_type not in (2, 6) or interlace:
        fail(f"unexpected PNG layout: depth {depth}, color type {color_type}, interlace {interlace}")
    channels = 3 if color_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def tinted(hex_color, opacity=0.25):
    """The colour of a fill of that opacity over white."""
    rgb = [int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]
    return tuple(round(255 - opacity * (255 - v)) for v in rgb)


def widest_run(rows, color, tolerance=6):
    best = 0
    for row in rows:
        run = 0
        for pixel in row:
            if all(abs(p - q) <= tolerance for p, q in zip(pixel, color)):
                run += 1
                best = max(best, run)
            else:
                run = 0
    return best


def main():
    vitals, work = sys.argv[1:3]
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        why = "chromium is not installed (make test-deps installs it)"
        if os.environ.get("VITALS_REQUIRE_OUTSIDE_TOOLS"):
            fail(why)
        print("SKIPPED: " + why)
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    random.seed(7)
    # Blocks of about 100 ns (before) and 104 ns (after), spread 4 ns, and one at 11x.
    for name, base in (("before", 100.0), ("after", 104.0)):
        blocks = [base + 4 * random.random() for _ in range(40)] + [11 * base]
        entries = [{"name": "op", "run_type": "iteration", "time_unit": "ns", "real_time": t} for t in blocks]
        with open(os.path.join(work, name + ".json"), "w") as f:
            json.dump({"benchmarks": entries}, f)
    page = os.path.join(work, "report.html")
    subprocess.run([vitals, "report", os.path.join(work, "before.json"), os.path.join(work, "after.json"),
                    "--html", page], check=True)
    shot = os.path.join(work, "report.png")
    if os.path.exists(shot):
        os.remove(shot)
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={os.path.join(work, 'profile')}", f"--screenshot={shot}",
                    "--window-size=900,700", "file://" + os.path.abspath(page)],
                   check=True, timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    width, height, rows = read_png(shot)
    # The before box is grey (#7f8c9a); the after box is red (#c53030): it is slower.
    for side, color in (("before", "#7f8c9a"), ("after", "#c53030")):
        box = widest_run(rows, tinted(color))
        if box < 20:
            fail(f"the {side} box is {box} px wide in a {width}x{height} screenshot: squashed by the outlier")
        print(f"{side} box: {box} px wide")
    with open(page) as f:
        html = f.read()
    ticks = re.findall(r'class="tick"[^>]*>([0-9.]+) (\w+)<', html)
    if len(ticks) < 3:
        fail(f"too few ticks: {ticks}")
    if len({unit for _, unit in ticks}) != 1:
        fail(f"ticks switch units inside one plot: {ticks}")
    values = [float(v) for v, _ in ticks]
    step = values[1] - values[0]
    if any(abs((b - a) - step) > 1e-9 for a, b in zip(values, values[1:])):
        fail(f"ticks are not evenly spaced: {ticks}")
    mantissa = step / 10 ** math.floor(math.log10(step))
    if not any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5, 10)):
        fail(f"tick step {step} is not a round value: {ticks}")
    if "outliers past it" not in html or 'class="clipped"' not in html:
        fail("the outliers past the axis are not marked")
    print(f"ticks {[' '.join(t) for t in ticks]}")


if __name__ == "__main__":
    main()
