"""Draws the extension's icons (16, 48 and 128 px PNGs) into the folder given:
three seats round a table, in the page's judge purple. Drawn here, with the
standard library only, so the build needs no image tools and the repository
holds no binary art."""

import struct
import sys
import zlib
from pathlib import Path

PURPLE = (122, 79, 179)
WHITE = (255, 255, 255)


def coverage(x, y, cx, cy, r, size):
    """How much of pixel (x, y) a disc covers, sampled 4×4 for smooth edges."""
    hits = 0
    for i in range(4):
        for j in range(4):
            px, py = (x + (i + 0.5) / 4) / size, (y + (j + 0.5) / 4) / size
            hits += (px - cx) ** 2 + (py - cy) ** 2 <= r * r
    return hits / 16


def pixel(x, y, size):
    background = coverage(x, y, 0.5, 0.5, 0.48, size)
    seats = max(coverage(x, y, cx, cy, 0.12, size) for cx, cy in ((0.5, 0.27), (0.3, 0.63), (0.7, 0.63)))
    rgb = tuple(round(p + (w - p) * seats) for p, w in zip(PURPLE, WHITE))
    return (*rgb, round(255 * background))


def png(size):
    rows = b"".join(b"\0" + bytes(v for x in range(size) for v in pixel(x, y, size)) for y in range(size))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    for size in (16, 48, 128):
        (out / f"icon-{size}.png").write_bytes(png(size))
