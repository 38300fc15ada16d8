#!/usr/bin/env python3
"""Runs the official MediaPipe HandLandmarker and GestureRecognizer (Tasks API, num_hands=2)
and writes the fixtures the Swift tests compare against: Tests/Fixtures/hands/*.json.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_hands.py

Image mode on every photo (unrotated and rotation_degrees 90/180/270) and video mode
(33 ms apart) on every sequence, for the hand landmarker bundle, the gesture recognizer
bundle and the gesture recognizer bundle with the custom (Rock/Paper/Scissors) classifier.
Coordinates are MediaPipe's: normalized to the unrotated input image.
"""
import json, os
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
SEQUENCES = os.path.join(SHARED, "testdata", "sequences")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "hands")
R = lambda v: round(float(v), 6)


def cat(c):
    return {"index": c.index, "score": R(c.score), "categoryName": c.category_name, "displayName": c.display_name}


def hands_json(r):
    out = []
    for i in range(len(r.hand_landmarks)):
        h = {"handedness": [cat(c) for c in r.handedness[i]],
             "landmarks": [[R(l.x), R(l.y), R(l.z)] for l in r.hand_landmarks[i]],
             "worldLandmarks": [[R(l.x), R(l.y), R(l.z)] for l in r.hand_world_landmarks[i]]}
        if hasattr(r, "gestures"):
            h["gestures"] = [cat(c) for c in r.gestures[i]]
        out.append(h)
    return out


def load(path):
    return mp.Image(image_format=mp.ImageFormat.SRGB,
                    data=np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))))


def make(kind, model, mode, num_hands=2):
    base = BaseOptions(model_asset_path=os.path.join(ROOT, "Models", model))
    if kind == "hands":
        return vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
            base_options=base, num_hands=num_hands, running_mode=mode))
    return vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
        base_options=base, num_hands=2, running_mode=mode))


def run(task, kind, image, ts=None, rot=0):
    opts = vision.ImageProcessingOptions(rotation_degrees=rot)
    if kind == "hands":
        return task.detect(image, opts) if ts is None else task.detect_for_video(image, ts, opts)
    return task.recognize(image, opts) if ts is None else task.recognize_for_video(image, ts, opts)


def main():
    os.makedirs(OUT, exist_ok=True)
    names = sorted(f for f in os.listdir(IMAGES) if f.endswith(".png"))
    configs = [("hands", "hand_landmarker.task", [0, 90, 180, 270], True),
               ("gestures", "gesture_recognizer.task", [0, 90, 180, 270], True),
               ("gestures_custom", "gesture_recognizer_with_custom_classifier.task", [0], False)]
    # One hand in view and num_hands=1: palm detection only while the hand is not tracked.
    seq = "hand_asl_1"
    task = make("hands", "hand_landmarker.task", vision.RunningMode.VIDEO, num_hands=1)
    frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
    entries = [{"file": f, "width": 0, "height": 0, "timestampMs": i * 33,
                "hands": hands_json(run(task, "hands", load(os.path.join(SEQUENCES, seq, f)), ts=i * 33))}
               for i, f in enumerate(frames)]
    with open(os.path.join(OUT, f"video1_hands_{seq}.json"), "w") as f:
        json.dump({"model": "hand_landmarker.task", "mode": "video", "numHands": 1, "sequence": seq,
                   "results": entries}, f, separators=(",", ":"))
    if os.environ.get("ONLY_NUM_HANDS_1"):
        return
    for key, model, rotations, video in configs:
        kind = "hands" if key == "hands" else "gestures"
        task = make(kind, model, vision.RunningMode.IMAGE)
        entries = []
        for name in names:
            image = load(os.path.join(IMAGES, name))
            for rot in rotations:
                entries.append({"file": name, "width": image.width, "height": image.height, "rotation": rot,
                                "hands": hands_json(run(task, kind, image, rot=rot))})
        with open(os.path.join(OUT, f"image_{key}.json"), "w") as f:
            json.dump({"model": model, "mode": "image", "results": entries}, f, separators=(",", ":"))
        print(key, len(entries), "results", flush=True)
        if not video:
            continue
        for seq in sorted(d for d in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, d))):
            task = make(kind, model, vision.RunningMode.VIDEO)
            frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
            entries = []
            for i, frame in enumerate(frames):
                image = load(os.path.join(SEQUENCES, seq, frame))
                entries.append({"file": frame, "width": image.width, "height": image.height, "timestampMs": i * 33,
                                "hands": hands_json(run(task, kind, image, ts=i * 33))})
            with open(os.path.join(OUT, f"video_{key}_{seq}.json"), "w") as f:
                json.dump({"model": model, "mode": "video", "sequence": seq, "results": entries}, f,
                          separators=(",", ":"))
            print(key, seq, len(entries), "frames", flush=True)


if __name__ == "__main__":
    main()
