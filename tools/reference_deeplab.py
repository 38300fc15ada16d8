#!/usr/bin/env python3
"""Runs MediaPipe 1.2.3's ImageSegmenter with the multi-class deeplab_v3.tflite (21 Pascal VOC classes, softmax per
its SEGMENTER_METADATA) and writes the fixtures the Swift tests compare against: Tests/Fixtures/deeplab/.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_deeplab.py

Image mode on every photo of ../shared/testdata/images (PIL's RGB pixels) and Google's burger.jpg; the pose photos
also at rotation_degrees 90 and 180 (MediaPipe returns masks of the stored image's size, also when turned). Video
mode (33 ms apart) on the first 20 frames of pose_dance_1.

21 full-size float masks per image are too big to commit, so each result is stored as:
- `conf`: per class, the SHA-256 of its float32 confidence mask (row-major, little-endian) and its float64 sum;
- `cat`: the SHA-256 of the uint8 category mask (the class index per pixel) and the count of each class;
- every 5th photo, the category mask as an 8-bit PNG (`<stem>_category.png`);
- for the ports of Google's iOS tests, a class's confidence mask of two photos as 8-bit PNGs
  (`<stem>_<class>.png`, numpy's round(p * 255) in float32): negative_animals_1's dog, pose_standing_1's person.
"""
import hashlib, json, os
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
SEQUENCES = os.path.join(SHARED, "testdata", "sequences")
SEQUENCE = "pose_dance_1"
FRAMES = 20
CONFIDENCE_PNGS = {"negative_animals_1.png": "dog", "pose_standing_1.png": "person"}
OUT = os.path.join(ROOT, "Tests", "Fixtures", "deeplab")
MODEL = "deeplab_v3.tflite"


def photos():
    with open(os.path.join(IMAGES, "MANIFEST.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return sorted(r[0] for r in rows if r and r[0].endswith(".png")) + ["google/burger.jpg"]


def load(path):
    if "/google/" in path:
        return mp.Image.create_from_file(path)
    pixels = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB")))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)


def model_path(name):
    path = os.path.join(ROOT, "Models", name)
    return path if os.path.exists(path) else os.path.join(SHARED, "models", name)


def make(mode):
    return vision.ImageSegmenter.create_from_options(vision.ImageSegmenterOptions(
        base_options=BaseOptions(model_asset_path=model_path(MODEL)), running_mode=mode,
        output_confidence_masks=True, output_category_mask=True))


def store(result, stem, png, confidence=None, labels=None):
    masks = result.confidence_masks
    h, w = masks[0].height, masks[0].width
    k = np.array(result.category_mask.numpy_view(), dtype=np.uint8).reshape(h, w)
    entry = {"width": w, "height": h, "masks": len(masks), "conf": [], "confSum": [],
             "cat": hashlib.sha256(k.tobytes()).hexdigest(),
             "catCounts": np.bincount(k.ravel(), minlength=len(masks)).tolist()}
    for m in masks:
        c = np.array(m.numpy_view(), dtype=np.float32).reshape(h, w)
        entry["conf"].append(hashlib.sha256(c.astype("<f4").tobytes()).hexdigest())
        entry["confSum"].append(float(c.sum(dtype=np.float64)))
    if png:
        Image.fromarray(k, mode="L").save(os.path.join(OUT, stem + "_category.png"), optimize=True)
        entry["png"] = stem
    if confidence:
        c = np.array(masks[labels.index(confidence)].numpy_view(), dtype=np.float32).reshape(h, w)
        Image.fromarray(np.round(c * np.float32(255)).clip(0, 255).astype(np.uint8), mode="L").save(
            os.path.join(OUT, f"{stem}_{confidence}.png"), optimize=True)
        entry["confidencePng"] = f"{stem}_{confidence}"
    return entry


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".png"):
            os.remove(os.path.join(OUT, f))
    doc = {"mediapipe": mp.__version__, "model": MODEL, "image": [], "video": []}
    with make(vision.RunningMode.IMAGE) as task:
        doc["labels"] = list(task.labels)
        for i, name in enumerate(photos()):
            path = os.path.join(SHARED, "testdata", name) if name.startswith("google/") else os.path.join(IMAGES, name)
            image = load(path)
            for rot in [0, 90, 180] if name.startswith("pose_") else [0]:
                r = task.segment(image, vision.ImageProcessingOptions(rotation_degrees=rot))
                stem = os.path.splitext(os.path.basename(name))[0] + (f"_r{rot}" if rot else "")
                confidence = CONFIDENCE_PNGS.get(name) if rot == 0 else None
                doc["image"].append({"file": name, "rotation": rot, **store(r, stem, png=rot == 0 and i % 5 == 0,
                                                                             confidence=confidence,
                                                                             labels=doc["labels"])})
            print(name, flush=True)
    frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, SEQUENCE)) if f.endswith(".png"))[:FRAMES]
    with make(vision.RunningMode.VIDEO) as task:
        for i, frame in enumerate(frames):
            r = task.segment_for_video(load(os.path.join(SEQUENCES, SEQUENCE, frame)), i * 33)
            doc["video"].append({"sequence": SEQUENCE, "file": frame, "timestampMs": i * 33,
                                 **store(r, f"{SEQUENCE}_f{i:02d}", png=i % 10 == 0)})
    with open(os.path.join(OUT, "deeplab.json"), "w") as f:
        json.dump(doc, f, indent=0)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {OUT}: {total / 1e6:.2f} MB", flush=True)


if __name__ == "__main__":
    main()
