#!/usr/bin/env python3
"""Peak memory of one interpreter per model, ours (vision-bench) against TFLite with XNNPACK
(ai-edge-litert), each a fresh process: the peak resident set after a few runs, less the
process's peak before the model was loaded (vision-bench alone; Python with numpy and TFLite
imported).

    swift build -c release && python3 tools/bench_memory.py [--threads 1]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--models", nargs="+", default=MODELS)
    args = ap.parse_args()
    bench = os.path.join(ROOT, ".build", "release", "vision-bench")
    print(f"{'model':42} {'ours MB':>8} {'tflite MB':>9} {'ratio':>6}")
    for name in args.models:
        path = os.path.join(ROOT, "Models", name)
        out = subprocess.run([bench, "--model", path, "--threads", str(args.threads), "--runs", "5", "--warmup", "0",
                              "--json", "--no-profile"], check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        ours = (r["peakBytes"] - r["baselineBytes"]) / 1e6
        theirs = int(subprocess.run([sys.executable, "-c", CHILD, path, str(args.threads)], check=True,
                                    capture_output=True, text=True).stdout.strip().splitlines()[-1]) / 1e6
        print(f"{name:42} {ours:8.1f} {theirs:9.1f} {ours / max(theirs, 1e-9):6.2f}")


if __name__ == "__main__":
    main()
