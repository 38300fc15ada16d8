#!/usr/bin/env python3
"""Runs the official MediaPipe FaceDetector (Tasks API) and writes the fixtures the
Swift tests compare against: Tests/Fixtures/faces/*.json.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_faces.py

Image mode on every photo in ../shared/testdata/images, unrotated and with
rotation_degrees 90/180/270, for the short-range model and both full-range models;
video mode (timestamps 33 ms apart) on every sequence in ../shared/testdata/sequences.
Coordinates are MediaPipe's: pixels / normalized in the unrotated input image.
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
OUT = os.path.join(ROOT, "Tests", "Fixtures", "faces")
MODELS = {
    "short": "blaze_face_short_range.tflite",
    "full_sparse": "face_detection_full_range_sparse.tflite",
}
# The dense face_detection_full_range.tflite has no TFLite metadata, which the official
# Tasks API refuses ("requires specifying NormalizationOptions metadata"), so it has no
# reference here; TasksVision runs it with BlazeFace's [-1, 1] input range.


def result_json(result):
    out = []
    for d in result.detections:
        b = d.bounding_box
        out.append({
            "boundingBox": {"originX": b.origin_x, "originY": b.origin_y, "width": b.width, "height": b.height},
            "score": d.categories[0].score,
            "keypoints": [[k.x, k.y] for k in d.keypoints],
        })
    return out


def load(path):
    return mp.Image(image_format=mp.ImageFormat.SRGB,
                    data=np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))))


def main():
    os.makedirs(OUT, exist_ok=True)
    names = sorted(f for f in os.listdir(IMAGES) if f.endswith(".png"))
    for key, model in MODELS.items():
        if os.path.exists(os.path.join(OUT, f"image_{key}.json")) and os.environ.get("FORCE") is None:
            continue
        options = vision.FaceDetectorOptions(
            base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", model)))
        detector = vision.FaceDetector.create_from_options(options)
        rotations = [0, 90, 180, 270] if key == "short" else [0]
        entries = []
        for name in names:
            image = load(os.path.join(IMAGES, name))
            for rot in rotations:
                r = detector.detect(image, vision.ImageProcessingOptions(rotation_degrees=rot))
                entries.append({"file": name, "width": image.width, "height": image.height, "rotation": rot,
                                "detections": result_json(r)})
        with open(os.path.join(OUT, f"image_{key}.json"), "w") as f:
            json.dump({"model": model, "mode": "image", "results": entries}, f, indent=0)
        print(key, len(entries), "results")
    for seq in sorted(d for d in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, d))):
        options = vision.FaceDetectorOptions(
            base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", MODELS["short"])),
            running_mode=vision.RunningMode.VIDEO)
        detector = vision.FaceDetector.create_from_options(options)
        frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
        entries = []
        for i, frame in enumerate(frames):
            image = load(os.path.join(SEQUENCES, seq, frame))
            r = detector.detect_for_video(image, i * 33)
            entries.append({"file": frame, "width": image.width, "height": image.height, "timestampMs": i * 33,
                            "detections": result_json(r)})
        with open(os.path.join(OUT, f"video_{seq}.json"), "w") as f:
            json.dump({"model": MODELS["short"], "mode": "video", "sequence": seq, "results": entries}, f, indent=0)
        print(seq, len(entries), "frames")


if __name__ == "__main__":
    main()
