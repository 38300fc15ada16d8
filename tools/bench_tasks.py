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


def vision_runs():
    """The benchmark runs of the vision command's task commands (`vision --help --json`)."""
    cli = os.path.join(ROOT, ".build", "release", "vision")
    out = subprocess.run([cli, "--help", "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["benchmarks"]


def mediapipe_task(reference):
    """The MediaPipe task a run is compared with, and how to call it on a frame (video frames 33 ms apart)."""
    options = getattr(vision, reference["task"] + "Options")(
        base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", reference["model"])),
        running_mode=vision.RunningMode.VIDEO if reference["video"] else vision.RunningMode.IMAGE,
        **reference["options"])
    task = getattr(vision, reference["task"]).create_from_options(options)
    if not reference["video"]:
        return task, lambda t, im: getattr(t, reference["call"])(im)
    clock = {"t": 0}

    def call(t, im):
        clock["t"] += 33
        return getattr(t, reference["call"] + "_for_video")(im, clock["t"])
    return task, call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", nargs="*", default=None)
    args = ap.parse_args()
    print(f"{'task':24} {'frame':>10} {'ours ms':>8} {'mediapipe ms':>12} {'ratio':>6} {'pooled':>6}")
    # The task runs and their MediaPipe counterparts, as `vision --help --json` lists them (each task command
    # declares its own).
    tasks = [(r["name"], r["photo"], r["reference"]) for r in vision_runs() if r.get("reference")]
    if args.tasks:
        tasks = [t for t in tasks if t[0] in args.tasks]
    for name, photo, reference in tasks:
        # A MediaPipe task per frame size: its HolisticLandmarker fails on a frame of another size than the last
        # (SegmentationSmoothingCalculator), whatever its options.
        made = {s: mediapipe_task(reference) for s in SIZES}
        fr = frames(photo)
        our_medians, their_medians = {s: [] for s in SIZES}, {s: [] for s in SIZES}
        for _ in range(args.rounds):
            for k, v in ours(name, photo, args.runs).items():
                our_medians[k].append(v)
            for s in SIZES:
                task, call = made[s]
                their_medians[s].append(median_ms(lambda: call(task, fr[s]), args.runs))
        for s in SIZES:
            o, t = min(our_medians[s]), min(their_medians[s])
            pooled = float(np.median(our_medians[s]) / np.median(their_medians[s]))
            print(f"{name:24} {s[0]:4d}x{s[1]:<5d} {o:8.3f} {t:12.3f} {o / t:6.2f} {pooled:6.2f}", flush=True)


if __name__ == "__main__":
    main()
