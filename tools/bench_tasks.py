#!/usr/bin/env python3
"""Per-frame latency of the vision tasks, ours (vision-bench --task) against the official
MediaPipe Tasks API on the same frames, same machine, same run; prints our best round median over
theirs (`ratio`) and the median of our round medians over the median of theirs (`pooled`: with many
short rounds, `--rounds 20 --runs 20`, both see the same spread of a shared machine's slow moments).

    swift build -c release && python3 tools/bench_tasks.py [--runs 100]

Frames are a test photo resized (bilinear) to 640x480 and 1280x720. Needs mediapipe==1.2.3.
"""
import argparse, json, os, subprocess, time
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
SIZES = [(640, 480), (1280, 720)]


def frames(photo):
    img = Image.open(os.path.join(SHARED, "testdata", "images", photo)).convert("RGB")
    return {s: mp.Image(image_format=mp.ImageFormat.SRGB,
                        data=np.ascontiguousarray(np.asarray(img.resize(s, Image.BILINEAR)))) for s in SIZES}


def median_ms(fn, runs, warmup=10):
    for _ in range(warmup):
        fn()
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        fn()
        t.append((time.perf_counter() - s) * 1e3)
    return float(np.median(t))


def ours(task, photo, runs):
    bench = os.path.join(ROOT, ".build", "release", "vision-bench")
    args = [bench, "--task", task, "--runs", str(runs), "--json", "--image",
            os.path.join(SHARED, "testdata", "images", photo)]
    for w, h in SIZES:
        args += ["--size", f"{w}x{h}"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {(o["width"], o["height"]): o["medianMs"] for o in map(json.loads, out.strip().splitlines())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", nargs="*", default=None)
    args = ap.parse_args()
    print(f"{'task':24} {'frame':>10} {'ours ms':>8} {'mediapipe ms':>12} {'ratio':>6} {'pooled':>6}")
    tasks = [("faces", "faces_two_1.png",
              lambda: vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
                  base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models",
                                                                         "blaze_face_short_range.tflite")))),
              lambda t, im: t.detect(im))]
    def hand_task(kind, mode):
        base = BaseOptions(model_asset_path=os.path.join(
            ROOT, "Models", "hand_landmarker.task" if kind == "hands" else "gesture_recognizer.task"))
        if kind == "hands":
            return vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
                base_options=base, num_hands=2, running_mode=mode))
        return vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
            base_options=base, num_hands=2, running_mode=mode))
    clock = {"t": 0}
    def video_call(method):
        def call(t, im):
            clock["t"] += 33
            return getattr(t, method)(im, clock["t"])
        return call
    tasks += [
        ("hands", "hands_two_1.png", lambda: hand_task("hands", vision.RunningMode.IMAGE), lambda t, im: t.detect(im)),
        ("hands-video", "hands_two_1.png", lambda: hand_task("hands", vision.RunningMode.VIDEO),
         video_call("detect_for_video")),
        ("gestures", "hands_two_1.png", lambda: hand_task("gestures", vision.RunningMode.IMAGE),
         lambda t, im: t.recognize(im)),
        ("gestures-video", "hands_two_1.png", lambda: hand_task("gestures", vision.RunningMode.VIDEO),
         video_call("recognize_for_video")),
    ]
    def pose_task(model, mode):
        return vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", model)), num_poses=1,
            running_mode=mode))
    tasks += [
        ("pose", "pose_standing_1.png", lambda: pose_task("pose_landmarker_lite.task", vision.RunningMode.IMAGE),
         lambda t, im: t.detect(im)),
        ("pose-stream", "pose_standing_1.png", lambda: pose_task("pose_landmarker_lite.task", vision.RunningMode.VIDEO),
         video_call("detect_for_video")),
        ("pose-accurate", "pose_standing_1.png",
         lambda: pose_task("pose_landmarker_full.task", vision.RunningMode.IMAGE), lambda t, im: t.detect(im)),
        ("pose-accurate-stream", "pose_standing_1.png",
         lambda: pose_task("pose_landmarker_full.task", vision.RunningMode.VIDEO), video_call("detect_for_video")),
    ]
    def face_task(mode, full):
        return vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
            base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", "face_landmarker.task")),
            running_mode=mode, output_face_blendshapes=full, output_facial_transformation_matrixes=full))
    tasks += [
        ("face-landmarks", "face_frontal_1.png", lambda: face_task(vision.RunningMode.IMAGE, False),
         lambda t, im: t.detect(im)),
        ("face-landmarks-video", "face_frontal_1.png", lambda: face_task(vision.RunningMode.VIDEO, False),
         video_call("detect_for_video")),
        ("face-landmarks-full", "face_frontal_1.png", lambda: face_task(vision.RunningMode.IMAGE, True),
         lambda t, im: t.detect(im)),
        ("face-landmarks-full-video", "face_frontal_1.png", lambda: face_task(vision.RunningMode.VIDEO, True),
         video_call("detect_for_video")),
    ]
    if args.tasks:
        tasks = [t for t in tasks if t[0] in args.tasks]
    for name, photo, make, call in tasks:
        task = make()
        fr = frames(photo)
        our_medians, their_medians = {s: [] for s in SIZES}, {s: [] for s in SIZES}
        for _ in range(args.rounds):
            for k, v in ours(name, photo, args.runs).items():
                our_medians[k].append(v)
            for s in SIZES:
                their_medians[s].append(median_ms(lambda: call(task, fr[s]), args.runs))
        for s in SIZES:
            o, t = min(our_medians[s]), min(their_medians[s])
            pooled = float(np.median(our_medians[s]) / np.median(their_medians[s]))
            print(f"{name:24} {s[0]:4d}x{s[1]:<5d} {o:8.3f} {t:12.3f} {o / t:6.2f} {pooled:6.2f}", flush=True)


if __name__ == "__main__":
    main()
