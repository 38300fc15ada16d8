#!/usr/bin/env python3
"""Times every model on our engine (vision-bench) and on TFLite with XNNPACK, same
machine, same run, same thread count, and prints our median over theirs.

    swift build -c release && python3 tools/bench_engine.py [--threads 1 2] [--runs 100]

Needs `pip install ai-edge-litert numpy`. Each model is measured alternately on
both engines, in rounds (five by default): `ratio` is our best median over theirs, and
`paired` the median over rounds of each round's ratio (ours, then theirs right after),
and `pooled` the median of our round medians over the median of theirs. On a shared
machine whose speed drifts over seconds, many short rounds (`--rounds 20 --runs 20`)
give both engines the same spread of slow and fast moments, so `pooled` holds best. With `--cpu-time`
(one thread only), both engines' runs are timed by the calling thread's CPU time, which leaves out the
time other processes preempt them: on a loaded machine it ranks alternatives that wall time cannot.
"""
import argparse, json, os, subprocess, sys, time
import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = [
    "palm_detection_full.tflite", "palm_detection_lite.tflite", "hand_landmark_full.tflite",
    "hand_landmark_lite.tflite",
    "face_detection_short_range.tflite", "face_detection_full_range_sparse.tflite", "face_detection_full_range.tflite",
    "pose_detection.tflite", "pose_landmark_full.tflite", "pose_landmarks_detector.tflite",
    "gesture_embedder.tflite", "canned_gesture_classifier.tflite",
    "face_landmarker.task:face_landmarks_detector.tflite", "face_landmarker.task:face_blendshapes.tflite",
    "selfie_segmenter.tflite", "selfie_segmentation.tflite", "selfie_segmentation_landscape.tflite",
    "deeplab_v3.tflite", "efficientnet_lite0_float32.tflite",
    "holistic_landmarker_assembled.task:hand_roi_refinement.tflite",
    "efficientnet_lite0.tflite", "efficientdet_lite0.tflite",
]


def tflite_median(path, threads, runs, warmup=10, cpu_time=False):
    if ":" in os.path.basename(path):
        # A bundle's member (`vision-bench --model` reads `bundle.task:member.tflite`); TFLite gets its bytes.
        import zipfile
        bundle, member = path.rsplit(":", 1)
        it = Interpreter(model_content=zipfile.ZipFile(bundle).read(member), num_threads=threads)
    else:
        it = Interpreter(model_path=path, num_threads=threads)
    it.allocate_tensors()
    rng = np.random.default_rng(0)
    for d in it.get_input_details():
        if d["dtype"] == np.float32:
            it.set_tensor(d["index"], rng.random(d["shape"], dtype=np.float32))
        else:
            it.set_tensor(d["index"], rng.integers(0, 256, size=d["shape"]).astype(d["dtype"]))
    for _ in range(warmup):
        it.invoke()
    clock = time.thread_time if cpu_time else time.perf_counter
    times = []
    for _ in range(runs):
        t = clock()
        it.invoke()
        times.append((clock() - t) * 1e3)
    return float(np.median(times))


def ours_median(path, threads, runs, cpu_time=False):
    bench = os.path.join(ROOT, ".build", "release", "vision-bench")
    out = subprocess.run([bench, "--model", path, "--threads", str(threads), "--runs", str(runs), "--json"]
                         + (["--cpu-time"] if cpu_time else []),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["medianMs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--cpu-time", action="store_true", help="time runs by thread CPU time (one thread)")
    args = ap.parse_args()
    if args.cpu_time and args.threads != [1]:
        ap.error("--cpu-time measures one thread: add --threads 1")
    print(f"{'model':42} {'thr':>3} {'ours ms':>8} {'tflite ms':>9} {'ratio':>6} {'paired':>6} {'pooled':>6}")
    for name in args.models:
        path = os.path.join(ROOT, "Models", name)
        for threads in args.threads:
            ours, theirs = [], []
            for _ in range(args.rounds):
                ours.append(ours_median(path, threads, args.runs, args.cpu_time))
                theirs.append(tflite_median(path, threads, args.runs, cpu_time=args.cpu_time))
            o, t = min(ours), min(theirs)
            paired = float(np.median([a / b for a, b in zip(ours, theirs)]))
            pooled = float(np.median(ours) / np.median(theirs))
            print(f"{name:42} {threads:3d} {o:8.3f} {t:9.3f} {o / t:6.2f} {paired:6.2f} {pooled:6.2f}", flush=True)


if __name__ == "__main__":
    main()
