#!/usr/bin/env python3
"""Runs MediaPipe 1.2.3's ImageSegmenter (Tasks API, confidence and category masks) with the three selfie
models and writes the fixtures the Swift tests compare against: Tests/Fixtures/segmentation/.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_segmentation.py [--float-dir DIR]

Models: selfie_segmenter.tflite (the official ImageSegmenter model) and the mediapipe 0.10.14 wheel's
selfie_segmentation.tflite and selfie_segmentation_landscape.tflite, from Models/ (tools/setup.sh).

Image mode on every photo of the people in ../shared/testdata/images (every category but `negative`, and one
negative photo), unrotated; the pose photos also at rotation_degrees 90 and 180. Video mode (33 ms apart, every
frame) on the pose_dance_1 sequence. MediaPipe returns masks of the stored image's size (also when rotated).

A full-size float mask is too big to commit, so each is stored as:
- `conf`: the SHA-256 of the float32 confidence mask (row-major, little-endian bytes), with its float64 sum;
- `cat`: the SHA-256 of the uint8 category mask (0 the person, 255 the background), with its count of 0s;
- for the first model, and for every 10th video frame, PNG files too: `<stem>.png` the confidence in 8 bits
  (numpy's round(mask * 255) in float32, ties to even) and `<stem>_category.png` the category mask as it is.
--float-dir DIR also saves each float32 mask as DIR/<stem>.npy (for debugging, not fixtures).
"""
import hashlib, json, os, sys
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
SEQUENCES = os.path.join(SHARED, "testdata", "sequences")
SEQUENCE = "pose_dance_1"
OUT = os.path.join(ROOT, "Tests", "Fixtures", "segmentation")
MODELS = ["selfie_segmenter.tflite", "selfie_segmentation.tflite", "selfie_segmentation_landscape.tflite"]
NEGATIVE = "negative_animals_1.png"
FRAME_STEP = 10
FLOAT_DIR = sys.argv[sys.argv.index("--float-dir") + 1] if "--float-dir" in sys.argv else None


def photos():
    with open(os.path.join(IMAGES, "MANIFEST.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return sorted(r[0] for r in rows if len(r) > 3 and (r[3] != "negative" or r[0] == NEGATIVE))


def load(path):
    pixels = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB")))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)


def model_path(name):
    path = os.path.join(ROOT, "Models", name)
    return path if os.path.exists(path) else os.path.join(SHARED, "models", name)


def make(model, mode):
    return vision.ImageSegmenter.create_from_options(vision.ImageSegmenterOptions(
        base_options=BaseOptions(model_asset_path=model_path(model)), running_mode=mode,
        output_confidence_masks=True, output_category_mask=True))


def store(result, stem, pngs):
    """The result's two masks as hashes (and PNG files when `pngs`)."""
    conf = result.confidence_masks[0]
    c = np.array(conf.numpy_view(), dtype=np.float32).reshape(conf.height, conf.width)
    k = np.array(result.category_mask.numpy_view(), dtype=np.uint8).reshape(conf.height, conf.width)
    entry = {"width": conf.width, "height": conf.height, "masks": len(result.confidence_masks),
             "conf": hashlib.sha256(c.astype("<f4").tobytes()).hexdigest(), "confSum": float(c.sum(dtype=np.float64)),
             "cat": hashlib.sha256(k.tobytes()).hexdigest(), "catPerson": int((k == 0).sum())}
    if pngs:
        Image.fromarray(np.round(c * np.float32(255)).clip(0, 255).astype(np.uint8), mode="L").save(
            os.path.join(OUT, stem + ".png"), optimize=True)
        Image.fromarray(k, mode="L").save(os.path.join(OUT, stem + "_category.png"), optimize=True)
        entry["png"] = stem
    if FLOAT_DIR:
        np.save(os.path.join(FLOAT_DIR, stem + ".npy"), c)
    return entry


def main():
    os.makedirs(OUT, exist_ok=True)
    if FLOAT_DIR:
        os.makedirs(FLOAT_DIR, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".png"):
            os.remove(os.path.join(OUT, f))
    names = photos()
    frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, SEQUENCE)) if f.endswith(".png"))
    doc = {"mediapipe": mp.__version__, "models": MODELS, "frameStep": FRAME_STEP,
           "quantization": "np.round(mask * 255) in float32 (ties to even), 8-bit gray PNG", "image": [], "video": []}
    for m, model in enumerate(MODELS):
        key = model[:-7]
        with make(model, vision.RunningMode.IMAGE) as task:
            if m == 0:
                doc["labels"] = list(task.labels)
            for name in names:
                image = load(os.path.join(IMAGES, name))
                for rot in [0, 90, 180] if name.startswith("pose_") else [0]:
                    r = task.segment(image, vision.ImageProcessingOptions(rotation_degrees=rot))
                    stem = f"{key}_{name[:-4]}" + (f"_r{rot}" if rot else "")
                    doc["image"].append({"model": model, "file": name, "rotation": rot,
                                         **store(r, stem, pngs=m == 0 and rot == 0)})
        print(model, "image mode done", flush=True)
        with make(model, vision.RunningMode.VIDEO) as task:
            for i, frame in enumerate(frames):
                r = task.segment_for_video(load(os.path.join(SEQUENCES, SEQUENCE, frame)), i * 33)
                doc["video"].append({"model": model, "sequence": SEQUENCE, "file": frame, "timestampMs": i * 33,
                                     **store(r, f"{key}_{SEQUENCE}_f{i:02d}", pngs=i % FRAME_STEP == 0)})
        print(model, SEQUENCE, len(frames), "frames", flush=True)
    with open(os.path.join(OUT, "segmentation.json"), "w") as f:
        json.dump(doc, f, indent=0)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {OUT}: {total / 1e6:.2f} MB", flush=True)


if __name__ == "__main__":
    main()
