#!/usr/bin/env python3
"""Runs the official MediaPipe PoseLandmarker (Tasks API, num_poses=1, lite and full bundles,
output_segmentation_masks=True) and writes the segmentation-mask fixtures the Swift tests
compare against: Tests/Fixtures/pose/masks/*.png and masks.json.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_pose_masks.py [--float-dir DIR]

Image mode on every photo (unrotated, and rotation_degrees 90 on the pose photos), video mode
(33 ms apart, every frame processed) on every sequence with every 10th frame's mask stored.
A mask is the image's size (stored pixels, as MediaPipe reports it), one per pose; it is stored
as 8-bit gray PNG, numpy's round(mask * 255) (the product in float32, ties to even). masks.json
lists each result with its poses' mask files and, per mask, the float mask's exact sum (float64
over the float32 values) and mean, so a test is not held only to the quantized values.
--float-dir also saves the float32 masks as .npy there (for debugging, not fixtures):
TASKSVISION_MASK_DEV=DIR swift test ... --filter PoseSegmentationParityTests/testDevelopmentFloatMasks
compares our image-mode masks with them bit for bit.
"""
import json, os, sys
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
SEQUENCES = os.path.join(SHARED, "testdata", "sequences")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "pose", "masks")
MODELS = [("lite", "pose_landmarker_lite.task"), ("full", "pose_landmarker_full.task")]
FRAME_STEP = 10
FLOAT_DIR = sys.argv[sys.argv.index("--float-dir") + 1] if "--float-dir" in sys.argv else None


def load(path):
    pixels = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB")))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)


def make(model, mode):
    return vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", model)), num_poses=1, running_mode=mode,
        output_segmentation_masks=True))


def store(result, stem, keep=True):
    """The result's masks as PNG files named stem_<pose>.png, and their index entries."""
    masks = []
    for i, m in enumerate(result.segmentation_masks or []):
        a = np.array(m.numpy_view(), dtype=np.float32).reshape(m.height, m.width)
        entry = {"width": m.width, "height": m.height, "sum": float(a.sum(dtype=np.float64)),
                 "mean": float(a.mean(dtype=np.float64))}
        if keep:
            name = f"{stem}_{i}.png"
            Image.fromarray(np.round(a * 255).clip(0, 255).astype(np.uint8), mode="L").save(
                os.path.join(OUT, name), optimize=True)
            entry["file"] = name
            if FLOAT_DIR:
                np.save(os.path.join(FLOAT_DIR, f"{stem}_{i}.npy"), a)
        masks.append(entry)
    return masks


def main():
    os.makedirs(OUT, exist_ok=True)
    if FLOAT_DIR:
        os.makedirs(FLOAT_DIR, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".png"):
            os.remove(os.path.join(OUT, f))
    names = sorted(f for f in os.listdir(IMAGES) if f.endswith(".png"))
    sequences = sorted(d for d in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, d)))
    quantization = "np.round(mask * 255) in float32 (ties to even), 8-bit gray PNG"
    doc = {"mediapipe": mp.__version__, "quantization": quantization,
           "frameStep": FRAME_STEP, "image": [], "video": []}
    for key, model in MODELS:
        with make(model, vision.RunningMode.IMAGE) as task:
            for name in names:
                image = load(os.path.join(IMAGES, name))
                for rot in [0, 90] if name.startswith("pose_") else [0]:
                    r = task.detect(image, vision.ImageProcessingOptions(rotation_degrees=rot))
                    stem = f"image_{key}_{name[:-4]}" + (f"_r{rot}" if rot else "")
                    doc["image"].append({"model": model, "file": name, "rotation": rot, "width": image.width,
                                         "height": image.height, "masks": store(r, stem)})
        print(key, "image mode done", flush=True)
        for seq in sequences:
            with make(model, vision.RunningMode.VIDEO) as task:
                frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
                for i, frame in enumerate(frames):
                    image = load(os.path.join(SEQUENCES, seq, frame))
                    r = task.detect_for_video(image, i * 33)
                    keep = i % FRAME_STEP == 0
                    masks = store(r, f"video_{key}_{seq}_f{i:02d}", keep=keep)
                    if keep:
                        doc["video"].append({"model": model, "sequence": seq, "file": frame, "frame": i,
                                             "timestampMs": i * 33, "width": image.width, "height": image.height,
                                             "masks": masks})
            print(key, seq, len(frames), "frames", flush=True)
    with open(os.path.join(OUT, "masks.json"), "w") as f:
        json.dump(doc, f, indent=1)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {OUT}: {total / 1e6:.2f} MB", flush=True)


if __name__ == "__main__":
    main()
