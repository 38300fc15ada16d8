#!/usr/bin/env python3
"""Writes the synthetic JPEG test cards in Tests/Fixtures/imageio (no photos) and, for each,
the pixels MediaPipe decodes it to (`mp.Image.create_from_file`, stb_image inside, EXIF
orientation applied) as a PNG: the reference for our decoder, which must match exactly.

Cards (odd sizes, so chroma upsampling edges and partial blocks are exercised):
  sample_420.jpg       baseline 4:2:0           sample_422_progressive.jpg  progressive 4:2:2
  sample_444.jpg       baseline 4:4:4           sample_420_progressive_restart.jpg  progressive, restart markers
  sample_420_restart.jpg  baseline, restarts    sample_gray.jpg / sample_gray_progressive.jpg
  sample_cmyk.jpg      Adobe CMYK               sample_exif6.jpg  EXIF orientation 6 (turned on loading)
Usage: python3 tools/make_imageio_fixtures.py [output-dir]   (needs Pillow and mediapipe==1.2.3)
"""
import sys
from pathlib import Path

import numpy as np
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
    import mediapipe as mp
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "Tests/Fixtures/imageio")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*_pillow.png"):
        old.unlink()
    im = card(97, 121)
    im.save(out / "sample_420.jpg", quality=90, subsampling="4:2:0")
    im.save(out / "sample_444.jpg", quality=90, subsampling="4:4:4")
    im.save(out / "sample_420_restart.jpg", quality=90, subsampling="4:2:0", restart_marker_blocks=3)
    im.save(out / "sample_422_progressive.jpg", quality=85, subsampling="4:2:2", progressive=True)
    im.save(out / "sample_420_progressive_restart.jpg", quality=85, subsampling="4:2:0", progressive=True,
            restart_marker_rows=1)
    im.convert("L").save(out / "sample_gray.jpg", quality=90)
    im.convert("L").save(out / "sample_gray_progressive.jpg", quality=90, progressive=True)
    im.convert("CMYK").save(out / "sample_cmyk.jpg", quality=90)
    exif = Image.Exif()
    exif[274] = 6  # Orientation: rotate 90 CW to display
    card(16, 12).save(out / "sample_exif6.jpg", quality=90, exif=exif)
    for jpg in sorted(out.glob("*.jpg")):
        image = mp.Image.create_from_file(str(jpg))
        pixels = np.array(image.numpy_view(), copy=True)  # copy while `image` is alive
        Image.fromarray(pixels[..., 0] if pixels.ndim == 3 and pixels.shape[-1] == 1 else pixels).save(
            out / (jpg.stem + "_mediapipe.png"))


if __name__ == "__main__":
    main()
