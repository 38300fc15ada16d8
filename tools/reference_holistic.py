#!/usr/bin/env python3
"""Runs the official MediaPipe HolisticLandmarker (Tasks API, holistic_landmarker_assembled.task, face
blendshapes and the segmentation mask on) and writes the fixtures the Swift tests compare against:
Tests/Fixtures/holistic/*.json and masks/*.png.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_holistic.py [image | video]    (both unless one is named)

Image mode on every photo, upright and turned 90/180/270 degrees clockwise (the pixels turned with
numpy: MediaPipe's holistic task ignores ImageProcessingOptions.rotation_degrees), each run on a new
landmarker: MediaPipe keeps its tracking state from one image-mode call to the next, carrying a
photo's regions to the next one, and fails on the next photo of another size with the mask on
(SegmentationSmoothingCalculator: "current_mat->rows == previous_mat->rows"). Video mode (33 ms
apart) on every sequence. Image mode writes a file per rotation (image_rot0.json ... image_rot270.json, each
under the 1 MiB the repository's checks allow), video mode a file per sequence (video_<sequence>.json).

Every part is a list of [x, y, z, visibility, presence] (null where MediaPipe leaves a field unset, trailing
unset fields left out: a face landmark is [x, y, z]), empty when MediaPipe found none; faceBlendshapes the 52
scores in MediaPipe's order (names in `blendshapeNames`). Values are rounded to six decimals. Masks: the float
mask's size, exact sum (float64 over the float32 values) and mean for every result; as an 8-bit gray PNG, numpy's
round(mask * 255) in float32 (ties to even), for the upright photos, the pose photos turned 90 degrees, and every
10th video frame.
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
OUT = os.path.join(ROOT, "Tests", "Fixtures", "holistic")
MASKS = os.path.join(OUT, "masks")
MODEL = "holistic_landmarker_assembled.task"
FRAME_STEP = 10
ROTATIONS = [0, 90, 180, 270]
R = lambda v: None if v is None else round(float(v), 6)


def point(l):
    """[x, y, z, visibility, presence] without its trailing unset fields."""
    p = [R(l.x), R(l.y), R(l.z), R(l.visibility), R(l.presence)]
    while p and p[-1] is None:
        p.pop()
    return p


def points(landmarks):
    return [point(l) for l in landmarks or []]


def mask_entry(m, stem):
    if m is None:
        return None
    a = np.array(m.numpy_view(), dtype=np.float32).reshape(m.height, m.width)
    entry = {"width": m.width, "height": m.height, "sum": float(a.sum(dtype=np.float64)),
             "mean": float(a.mean(dtype=np.float64))}
    if stem:
        name = stem + ".png"
        Image.fromarray(np.round(a * 255).clip(0, 255).astype(np.uint8), mode="L").save(
            os.path.join(MASKS, name), optimize=True)
        entry["file"] = name
    return entry


def result_json(r, stem):
    return {"faceLandmarks": points(r.face_landmarks),
            "faceBlendshapes": [R(c.score) for c in r.face_blendshapes or []],
            "poseLandmarks": points(r.pose_landmarks),
            "poseWorldLandmarks": points(r.pose_world_landmarks),
            "leftHandLandmarks": points(r.left_hand_landmarks),
            "rightHandLandmarks": points(r.right_hand_landmarks),
            "leftHandWorldLandmarks": points(r.left_hand_world_landmarks),
            "rightHandWorldLandmarks": points(r.right_hand_world_landmarks),
            "mask": mask_entry(r.segmentation_mask, stem)}


def model_path():
    path = os.path.join(ROOT, "Models", MODEL)
    return path if os.path.exists(path) else os.path.join(SHARED, "models", MODEL)


def make(mode):
    return vision.HolisticLandmarker.create_from_options(vision.HolisticLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=model_path()), running_mode=mode,
        output_face_blendshapes=True, output_segmentation_mask=True))


def image(pixels):
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(pixels))


def blendshape_names():
    """The category names of a result with a face."""
    with make(vision.RunningMode.IMAGE) as task:
        r = task.detect(image(np.asarray(Image.open(os.path.join(IMAGES, "face_frontal_1.png")).convert("RGB"))))
        return [c.category_name for c in r.face_blendshapes]


def write(name, doc):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", name, f"{os.path.getsize(os.path.join(OUT, name)) / 1e3:.0f} kB", flush=True)


def remove_masks(prefix):
    for f in os.listdir(MASKS):
        if f.startswith(prefix) and f.endswith(".png"):
            os.remove(os.path.join(MASKS, f))


def image_mode():
    remove_masks("image_")
    names = sorted(f for f in os.listdir(IMAGES) if f.endswith(".png"))
    entries = {rot: [] for rot in ROTATIONS}
    for name in names:
        upright = np.asarray(Image.open(os.path.join(IMAGES, name)).convert("RGB"))
        for rot in ROTATIONS:
            # np.rot90 turns counter-clockwise; k = -rot / 90 turns clockwise.
            pixels = np.rot90(upright, k=-(rot // 90))
            keep = rot == 0 or (rot == 90 and name.startswith("pose_"))
            with make(vision.RunningMode.IMAGE) as task:
                r = task.detect(image(pixels))
            entries[rot].append({"file": name, "rotation": rot, "width": pixels.shape[1], "height": pixels.shape[0],
                                 **result_json(r, f"image_{os.path.splitext(name)[0]}_{rot}" if keep else None)})
        print(name, flush=True)
    shapes = blendshape_names()
    for rot in ROTATIONS:
        write(f"image_rot{rot}.json", {
            "mediapipe": mp.__version__, "model": MODEL, "mode": "image",
            "rotation": "pixels turned clockwise by `rotation` degrees (np.rot90), a new landmarker per image",
            "blendshapeNames": shapes, "results": entries[rot]})


def video_mode():
    remove_masks("video_")
    for seq in sorted(d for d in os.listdir(SEQUENCES) if os.path.isdir(os.path.join(SEQUENCES, d))):
        frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
        entries = []
        with make(vision.RunningMode.VIDEO) as task:
            for i, frame in enumerate(frames):
                pixels = np.asarray(Image.open(os.path.join(SEQUENCES, seq, frame)).convert("RGB"))
                r = task.detect_for_video(image(pixels), i * 33)
                stem = f"video_{seq}_{os.path.splitext(frame)[0]}" if i % FRAME_STEP == 0 else None
                entries.append({"file": frame, "width": pixels.shape[1], "height": pixels.shape[0],
                                "timestampMs": i * 33, **result_json(r, stem)})
        write(f"video_{seq}.json", {"mediapipe": mp.__version__, "model": MODEL, "mode": "video", "sequence": seq,
                                    "frameStep": FRAME_STEP, "results": entries})


def main():
    modes = sys.argv[1:] or ["image", "video"]
    unknown = [m for m in modes if m not in ("image", "video")]
    if unknown:
        sys.exit(f"unknown mode {unknown[0]!r}: give image, video or nothing (both)")
    os.makedirs(MASKS, exist_ok=True)
    if "image" in modes:
        image_mode()
    if "video" in modes:
        video_mode()


if __name__ == "__main__":
    main()
