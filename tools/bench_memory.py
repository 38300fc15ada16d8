#!/usr/bin/env python3
"""Peak memory of one interpreter per model, ours (vision-bench) against TFLite with XNNPACK
(ai-edge-litert), each a fresh process: the peak resident set after a few runs, less the
process's peak before the model was loaded (vision-bench alone; Python with numpy and TFLite
imported).

    swift build -c release && python3 tools/bench_memory.py [--threads 1] [--tasks [--names RUN...]]

With --tasks, the same for each task of the command line on one photo: `vision <task> PHOTO`'s peak
resident set less `vision kernels`' (the process alone), against MediaPipe 1.2.3's task on the same
photo in IMAGE mode, less the peak of Python with mediapipe imported.
"""
import argparse, json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import MODELS  # noqa: E402

CHILD = r"""
import resource, sys
import numpy as np
from ai_edge_litert.interpreter import Interpreter
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
it = Interpreter(model_path=sys.argv[1], num_threads=int(sys.argv[2]))
it.allocate_tensors()
rng = np.random.default_rng(0)
for d in it.get_input_details():
    it.set_tensor(d["index"], rng.random(d["shape"], dtype=np.float32))
for _ in range(5):
    it.invoke()
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024)
"""


SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
TASK_CHILD = r"""
import json, resource, sys
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cls, model, call, extra, photo = sys.argv[1:6]
options = getattr(vision, cls + "Options")(base_options=BaseOptions(model_asset_path=model), **json.loads(extra))
task = getattr(vision, cls).create_from_options(options)
getattr(task, call)(mp.Image.create_from_file(photo))
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024)
"""

# Runs a command in a child and prints the child's peak resident set in bytes.
PEAK_OF_CHILD = r"""
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def last_line(command):
    """The last line a command prints (the measurement; the lines before are the libraries' logs)."""
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]


def child_peak(command):
    return int(last_line([sys.executable, "-c", PEAK_OF_CHILD] + command))


def tasks(threads, names=None):
    cli = os.path.join(ROOT, ".build", "release", "vision")
    alone = child_peak([cli, "kernels"])
    print(f"{'task':42} {'ours MB':>8} {'mediapipe MB':>12} {'ratio':>6}")
    # The image-mode task runs with a MediaPipe counterpart, as `vision --help --json` lists them.
    runs = json.loads(subprocess.run([cli, "--help", "--json"], check=True, capture_output=True,
                                     text=True).stdout)["benchmarks"]
    for run in runs:
        reference = run.get("reference")
        if not reference or reference["video"] or run["mode"] != "image" or (names and run["name"] not in names):
            continue
        name, photo = run["name"], run["photo"]
        image = os.path.join(SHARED, "testdata", "images", photo)
        args = [run["command"]] + run["arguments"]
        ours = (child_peak([cli] + args + ["--threads", str(threads), image]) - alone) / 1e6
        theirs = int(last_line([sys.executable, "-c", TASK_CHILD, reference["task"],
                                os.path.join(ROOT, "Models", reference["model"]), reference["call"],
                                json.dumps(reference["options"]), image])) / 1e6
        print(f"{name + ' (' + photo + ')':42} {ours:8.1f} {theirs:12.1f} {ours / max(theirs, 1e-9):6.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--tasks", action="store_true", help="the command line's tasks against MediaPipe's")
    ap.add_argument("--names", nargs="*", default=None, help="with --tasks, only these runs (vision-bench names)")
    args = ap.parse_args()
    if args.tasks:
        tasks(args.threads, args.names)
        return
    bench = os.path.join(ROOT, ".build", "release", "vision-bench")
    print(f"{'model':42} {'ours MB':>8} {'tflite MB':>9} {'ratio':>6}")
    for name in args.models:
        path = os.path.join(ROOT, "Models", name)
        r = json.loads(last_line([bench, "--model", path, "--threads", str(args.threads), "--runs", "5",
                                  "--warmup", "0", "--json", "--no-profile"]))
        ours = (r["peakBytes"] - r["baselineBytes"]) / 1e6
        theirs = int(last_line([sys.executable, "-c", CHILD, path, str(args.threads)])) / 1e6
        print(f"{name:42} {ours:8.1f} {theirs:9.1f} {ours / max(theirs, 1e-9):6.2f}")


if __name__ == "__main__":
    main()
