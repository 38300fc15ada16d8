#!/usr/bin/env python3
"""Runs the official MediaPipe PoseLandmarker (Tasks API, num_poses=1, lite and full
bundles) and writes the fixtures the Swift tests compare against: Tests/Fixtures/pose/*.json.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_pose.py

Image mode on every photo (unrotated and rotation_degrees 90/180/270), video mode
(33 ms apart) on every sequence, and image mode on every sequence frame alone
(`--frames-only` writes just those). Coordinates are MediaPipe's: normalized to the
unrotated input image.
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
OUT = os.path.join(ROOT, "Tests", "Fixtures", "pose")
R = lambda v: round(float(v), 6)


def poses_json(r):
    return [{"landmarks": [[R(l.x), R(l.y), R(l.z), R(l.visibility), R(l.presence)] for l in r.pose_landmarks[i]],
             "worldLandmarks": [[R(l.x), R(l.y), R(l.z), R(l.visibility), R(l.presence)]
                                for l in r.pose_world_landmarks[i]]}
            for i in range(len(r.pose_landmarks))]


def load(path):
    return mp.Image(image_format=mp.ImageFormat.SRGB,
                    data=np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))))


def make(model, mode):
    return vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", model)), num_poses=1, running_mode=mode))


def frames_in_image_mode():
    """Image mode on every frame of the sequences: the detector and landmark model on each
    frame alone, with no tracking to carry differences from frame to frame."""
    for key, model in [("lite", "pose_landmarker_lite.task"), ("full", "pose_landmarker_full.task")]:
        task = make(model, vision.RunningMode.IMAGE)
        for seq in sorted(d for d in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, d))):
            frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
            entries = []
            for frame in frames:
                image = load(os.path.join(SEQUENCES, seq, frame))
                entries.append({"file": frame, "width": image.width, "height": image.height,
                                "poses": poses_json(task.detect(image))})
            with open(os.path.join(OUT, f"frames_{key}_{seq}.json"), "w") as f:
                json.dump({"model": model, "mode": "image", "sequence": seq, "results": entries}, f,
                          separators=(",", ":"))
            print(key, seq, len(entries), "frames in image mode", flush=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    frames_in_image_mode()
    if "--frames-only" in sys.argv:
        return
    names = sorted(f for f in os.listdir(IMAGES) if f.endswith(".png"))
    for key, model in [("lite", "pose_landmarker_lite.task"), ("full", "pose_landmarker_full.task")]:
        task = make(model, vision.RunningMode.IMAGE)
        entries = []
        for name in names:
            image = load(os.path.join(IMAGES, name))
            for rot in [0, 90, 180, 270]:
                r = task.detect(image, vision.ImageProcessingOptions(rotation_degrees=rot))
                entries.append({"file": name, "width": image.width, "height": image.height, "rotation": rot,
                                "poses": poses_json(r)})
        with open(os.path.join(OUT, f"image_{key}.json"), "w") as f:
            json.dump({"model": model, "mode": "image", "results": entries}, f, separators=(",", ":"))
        print(key, len(entries), "results", flush=True)
        for seq in sorted(d for d in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, d))):
            task = make(model, vision.RunningMode.VIDEO)
            frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
            entries = []
            for i, frame in enumerate(frames):
                image = load(os.path.join(SEQUENCES, seq, frame))
                entries.append({"file": frame, "width": image.width, "height": image.height, "timestampMs": i * 33,
                                "poses": poses_json(task.detect_for_video(image, i * 33))})
            with open(os.path.join(OUT, f"video_{key}_{seq}.json"), "w") as f:
                json.dump({"model": model, "mode": "video", "sequence": seq, "results": entries}, f,
                          separators=(",", ":"))
            print(key, seq, len(entries), "frames", flush=True)


if __name__ == "__main__":
    main()
