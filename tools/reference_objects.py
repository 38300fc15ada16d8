#!/usr/bin/env python3
"""Runs MediaPipe 1.2.3's ObjectDetector (Tasks API) with efficientdet_lite0.tflite and writes the fixtures the
Swift tests compare against: Tests/Fixtures/objects/.

    pip install mediapipe==1.2.3 ai-edge-litert==2.3.0 opencv-python pillow numpy
    python3 tools/reference_objects.py

objects.json holds MediaPipe's detections, each [originX, originY, width, height, score, categoryName,
displayName, index] (pixels of the stored image, as MediaPipe reports them; index null where MediaPipe gives
none):
- image mode, every photo of ../shared/testdata/images and Google's burger.jpg and burger_crop.jpg (decoded
  as Image.create_from_file decodes JPEGs), at rotation_degrees 0, 90, 180 and 270, max_results 40 (non-maximum
  suppression keeps greedily, so these are the first 40 of the full list);
- every detection with default options (about 1000 to 2000 a photo) for three photos;
- the options one at a time on three photos: score_threshold, max_results, an allowlist, a denylist, a
  display_names_locale of "" (every label file then matches, so display names are the labels);
- video mode (timestamps 33 ms apart) on every sequence of ../shared/testdata/sequences, score_threshold 0.1.

raw_<photo>.json holds, for two photos, the model's two outputs as ai-edge-litert's default interpreter
(XNNPACK) gives them on the model input MediaPipe's CPU graph builds (the whole image stretched to 320x320 by
OpenCV's fixed-point warpPerspective, emulated below), with MediaPipe's detections of the photo: the
post-processing alone is tested on them. MediaPipe 1.2.3 gives the detections this post-processing gives on
these outputs, so its interpreter computes the same outputs. Each output is stored as its distinct values
(float32 bit patterns) and the zlib-compressed uint8 index of each element into them, base64.
"""
import base64, json, os, sys, zlib
import numpy as np
import cv2
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
GOOGLE = os.path.join(SHARED, "testdata", "google")
SEQUENCES = os.path.join(SHARED, "testdata", "sequences")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "objects")
MODEL = "efficientdet_lite0.tflite"
CAP = 40
FULL = ["negative_animals_1.png", "burger.jpg", "pose_multi_1.png"]
OPTION_PHOTOS = ["negative_animals_1.png", "burger.jpg", "faces_group_1.png"]
RAW = ["negative_animals_1.png", "burger.jpg"]
OPTIONS = [
    {"score_threshold": 0.3},
    {"max_results": 3},
    {"category_allowlist": ["cat", "person", "sandwich", "not a label"]},
    {"category_denylist": ["cat", "person", "sandwich"]},
    {"display_names_locale": "", "max_results": 5},
    {"score_threshold": 0.25, "category_allowlist": ["dog", "carrot"]},
]


def model_path():
    path = os.path.join(ROOT, "Models", MODEL)
    return path if os.path.exists(path) else os.path.join(SHARED, "models", MODEL)


def path_of(name):
    return os.path.join(GOOGLE if name.startswith("burger") else IMAGES, name)


def load(name):
    path = path_of(name)
    if path.endswith(".jpg"):
        image = mp.Image.create_from_file(path)
        return image, np.ascontiguousarray(image.numpy_view()[:, :, :3])
    pixels = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB")))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels), pixels


def detector(mode=vision.RunningMode.IMAGE, **options):
    options = dict(options)
    if "display_names_locale" in options:  # the wrapper passes it to a char* as it is
        options["display_names_locale"] = options["display_names_locale"].encode()
    return vision.ObjectDetector.create_from_options(vision.ObjectDetectorOptions(
        base_options=BaseOptions(model_asset_path=model_path()), running_mode=mode, **options))


def detections(result):
    out = []
    for d in result.detections:
        b = d.bounding_box
        c = d.categories[0]
        if len(d.categories) != 1:
            raise SystemExit("a detection with %d categories" % len(d.categories))
        out.append([b.origin_x, b.origin_y, b.width, b.height, float(c.score), c.category_name,
                    c.display_name, c.index])
    return out


def mediapipe_warp(rgb, out_w, out_h):
    """OpenCV's warpPerspective of the whole image onto out_w x out_h as MediaPipe's OpenCV runs it: source
    positions in doubles per block of 16 rows, rounded to 1/32 pixel, then cv2.remap's fixed-point bilinear
    sampling with those positions, replicated border (opencv-python's warpPerspective samples in float)."""
    h, w = rgb.shape[:2]
    src = cv2.boxPoints(((w / 2, h / 2), (w, h), 0.0)).astype(np.float32)
    dst = np.array([[0, out_h], [0, 0], [out_w, 0], [out_w, out_h]], np.float32)
    _, m = cv2.invert(cv2.getPerspectiveTransform(src, dst))
    m = m.ravel()
    bh = min(16, out_h)
    bw = min(1024 // bh, out_w)
    map1 = np.zeros((out_h, out_w, 2), np.int16)
    map2 = np.zeros((out_h, out_w), np.uint16)
    for yb in range(0, out_h, bh):
        for xb in range(0, out_w, bw):
            cw = min(bw, out_w - xb)
            x1 = np.arange(cw, dtype=np.float64)
            for y in range(yb, min(yb + bh, out_h)):
                X0 = m[0] * xb + m[1] * y + m[2]
                Y0 = m[3] * xb + m[4] * y + m[5]
                W = m[6] * xb + m[7] * y + m[8] + m[6] * x1
                s = np.where(W != 0, 32.0 / np.where(W != 0, W, 1), 0.0)
                X = np.rint(np.clip((X0 + m[0] * x1) * s, -2147483648.0, 2147483647.0)).astype(np.int64)
                Y = np.rint(np.clip((Y0 + m[3] * x1) * s, -2147483648.0, 2147483647.0)).astype(np.int64)
                map1[y, xb:xb + cw, 0] = np.clip(X >> 5, -32768, 32767)
                map1[y, xb:xb + cw, 1] = np.clip(Y >> 5, -32768, 32767)
                map2[y, xb:xb + cw] = (Y & 31) * 32 + (X & 31)
    return cv2.remap(rgb, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def packed(array):
    values, index = np.unique(array.astype(np.float32), return_inverse=True)
    if len(values) > 256:
        raise SystemExit("%d distinct values do not fit a byte index" % len(values))
    return {"shape": list(array.shape), "values": [int(v) for v in values.view(np.uint32)],
            "index": base64.b64encode(zlib.compress(index.astype(np.uint8).tobytes(), 9)).decode()}


def raw_outputs(pixels):
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_path=model_path(), num_threads=1)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    it.set_tensor(inp["index"], mediapipe_warp(pixels, inp["shape"][2], inp["shape"][1])[None])
    it.invoke()
    return [it.get_tensor(d["index"])[0] for d in it.get_output_details()]


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(IMAGES, "MANIFEST.tsv")) as f:
        photos = sorted(line.split("\t")[0] for line in list(f)[1:] if line.strip())
    photos += ["burger.jpg", "burger_crop.jpg"]
    results = []
    capped = detector(max_results=CAP)
    for name in photos:
        image, _ = load(name)
        for rot in (0, 90, 180, 270):
            r = capped.detect(image, vision.ImageProcessingOptions(rotation_degrees=rot))
            results.append({"file": name, "width": image.width, "height": image.height, "rotation": rot,
                            "options": {"max_results": CAP}, "detections": detections(r)})
    full = detector()
    for name in FULL:
        image, _ = load(name)
        results.append({"file": name, "width": image.width, "height": image.height, "rotation": 0,
                        "options": {}, "detections": detections(full.detect(image))})
    for options in OPTIONS:
        d = detector(**options)
        for name in OPTION_PHOTOS:
            image, _ = load(name)
            results.append({"file": name, "width": image.width, "height": image.height, "rotation": 0,
                            "options": options, "detections": detections(d.detect(image))})
    videos = []
    for seq in sorted(s for s in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, s))):
        d = detector(vision.RunningMode.VIDEO, score_threshold=0.1)
        frames = []
        for i, frame in enumerate(sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))):
            pixels = np.ascontiguousarray(np.asarray(Image.open(os.path.join(SEQUENCES, seq, frame)).convert("RGB")))
            image = mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)
            frames.append({"file": frame, "width": image.width, "height": image.height, "timestampMs": i * 33,
                           "detections": detections(d.detect_for_video(image, i * 33))})
        videos.append({"sequence": seq, "options": {"score_threshold": 0.1}, "frames": frames})
    with open(os.path.join(OUT, "objects.json"), "w") as f:
        json.dump({"model": MODEL, "mediapipe": mp.__version__, "images": results, "videos": videos}, f,
                  separators=(",", ":"))
    print(len(results), "image results,", sum(len(v["frames"]) for v in videos), "video frames")
    for name in RAW:
        image, pixels = load(name)
        outputs = raw_outputs(pixels)
        doc = {"file": name, "width": image.width, "height": image.height,
               "outputs": [packed(o) for o in outputs], "detections": detections(full.detect(image))}
        with open(os.path.join(OUT, "raw_" + os.path.splitext(name)[0] + ".json"), "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print("raw", name, [o.shape for o in outputs])


if __name__ == "__main__":
    main()
