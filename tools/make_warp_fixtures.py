#!/usr/bin/env python3
"""Writes Tests/Fixtures/preprocessing/opencv_roi_geometry.json: for random rotated regions
(centres inside and outside the image, quarter turns and arbitrary angles, mirrored and not),
the corners `cv::boxPoints` gives and the `cv::getPerspectiveTransform` matrix (and its
`cv::invert`) that MediaPipe's CPU ImageToTensorCalculator builds from them, computed by
OpenCV 5.1 (the version inside mediapipe==1.2.3) from exactly the float inputs MediaPipe
passes: the angle as `rotation * 180.f / M_PI`, destination corners of the tensor.

Sample positions at ties (quarter turns, whole scale factors) round by the last bit of
these numbers, so the test requires them bit for bit.

Usage: python3 tools/make_warp_fixtures.py [output]   (needs opencv-python 5.1 and numpy)
"""
import json, math, sys
import numpy as np
import cv2

f32 = np.float32


def bits32(v):
    return int(np.float32(v).view(np.uint32))


def bits64(v):
    return int(np.float64(v).view(np.uint64))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "Tests/Fixtures/preprocessing/opencv_roi_geometry.json"
    rng = np.random.default_rng(7)
    cases = []
    for k in range(64):
        W, H = [(1280, 853), (928, 960), (513, 513), (612, 408), (620, 1080)][k % 5]
        cx, cy = f32(rng.uniform(-0.2, 1.2) * W), f32(rng.uniform(-0.2, 1.2) * H)
        w = f32(rng.uniform(30, 1.5 * max(W, H)))
        h = w if k % 3 else f32(rng.uniform(30, 1.5 * max(W, H)))
        rot = f32(-(k % 4) * math.pi / 2) if k % 4 == 0 or k % 5 == 0 else f32(rng.uniform(-math.pi, math.pi))
        size = [128, 192, 224, 256][k % 4]
        flip = k % 7 == 0
        angle = float(f32(float(f32(rot * f32(180))) / math.pi))
        box = cv2.boxPoints(((float(cx), float(cy)), (float(w), float(h)), angle)).astype(np.float32)
        s = float(size)
        dst = np.array([[s, s], [s, 0], [0, 0], [0, s]] if flip else [[0, s], [0, 0], [s, 0], [s, s]], np.float32)
        m = cv2.getPerspectiveTransform(box, dst)
        _, inv = cv2.invert(m)
        cases.append({
            "roi": [bits32(v) for v in (cx, cy, w, h, rot)], "size": size, "flip": bool(flip),
            "box": [bits32(v) for v in box.ravel()],
            "matrix": [bits64(v) for v in m.ravel()], "inverse": [bits64(v) for v in inv.ravel()],
        })
    doc = {"opencv": cv2.__version__, "note": "float32/float64 bit patterns", "cases": cases}
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(f"wrote {len(cases)} cases to {out} (OpenCV {cv2.__version__})")


if __name__ == "__main__":
    main()
