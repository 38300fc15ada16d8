#!/usr/bin/env python3
"""Writes the synthetic JPEG test cards in Tests/Fixtures/imageio (no photos).

sample_420.jpg: baseline JPEG, 4:2:0, odd size so the chroma upsampling edges are exercised;
sample_420_pillow.png: Pillow's decoding of it (the reference for our decoder);
sample_gray.jpg: the same card in grayscale; sample_exif6.jpg: a small card with EXIF orientation 6.
Usage: python3 tools/make_imageio_fixtures.py [output-dir]
"""
import sys
from pathlib import Path
from PIL import Image


def card(width, height):
    im = Image.new("RGB", (width, height))
    px = im.load()
    for y in range(height):
        for x in range(width):
            r = x * 255 // max(1, width - 1)
            g = y * 255 // max(1, height - 1)
            b = 255 if ((x // 8) + (y // 8)) % 2 == 0 else 30  # checkerboard: sharp chroma edges
            px[x, y] = (r, g, b)
    for y in range(height // 3, height // 2):
        for x in range(width // 4, width // 2):
            px[x, y] = (220, 20, 20)  # a saturated block
    return im


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "Tests/Fixtures/imageio")
    out.mkdir(parents=True, exist_ok=True)
    im = card(97, 121)
    im.save(out / "sample_420.jpg", quality=90, subsampling="4:2:0")
    Image.open(out / "sample_420.jpg").convert("RGB").save(out / "sample_420_pillow.png")
    im.convert("L").save(out / "sample_gray.jpg", quality=90)
    exif = Image.Exif()
    exif[274] = 6  # Orientation: rotate 90 CW to display
    card(16, 12).save(out / "sample_exif6.jpg", quality=90, exif=exif)


if __name__ == "__main__":
    main()
