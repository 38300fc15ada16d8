#!/usr/bin/env python3
"""Generates the quantized op fixtures: ai-edge-litert's outputs on the single-op int8/uint8 models of
Tests/TasksVisionEngineTests/QuantizedOpCases.swift.

    python3 tools/reference_quantized_ops.py              # writes Tests/Fixtures/quantized_ops/
    python3 tools/reference_quantized_ops.py --check      # reruns and reports what changed, writes nothing
    python3 tools/reference_quantized_ops.py --cases DIR  # takes cases QuantizedOpCaseTests already wrote to DIR

The models and their inputs (random shapes, per-tensor and per-channel weights, zero points at the ends of their
range, asymmetric uint8) are made by the Swift generator, the one the parity test runs: this script builds the tests
and has QuantizedOpCaseTests write them into a temporary folder (TASKSVISION_WRITE_QUANTIZED_OPS=DIR). Each model
runs in ai-edge-litert 2.3.0's default interpreter (the XNNPACK delegate, one thread). Only the manifest (each case's
name, its model's SHA-256, which kernels ran: "xnnpack" when the delegate took the node, else "builtin", and in how
many values TFLite's built-in kernels differ) and the outputs (`<case>__out<i>.npy`) are committed; no model. A case
the default interpreter cannot prepare would take the built-in kernels' outputs
(`experimental_op_resolver_type=BUILTIN_WITHOUT_DEFAULT_DELEGATES`). Needs `pip install ai-edge-litert numpy` and
the Swift toolchain.
"""
import argparse, hashlib, importlib.metadata, json, os, subprocess, sys, tempfile
import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "quantized_ops")
SWIFT = ["-c", "release", "-Xswiftc", "-enable-testing"]


def write_cases(folder):
    """Has the Swift generator write every case's model and inputs into `folder`."""
    subprocess.run(["swift", "build", *SWIFT, "--build-tests"], cwd=ROOT, check=True)
    env = dict(os.environ, TASKSVISION_WRITE_QUANTIZED_OPS=folder)
    subprocess.run(["swift", "test", *SWIFT, "--skip-build", "--filter",
                    "QuantizedOpCaseTests/testCasesAreTheSameEachTimeAndWellFormed"], cwd=ROOT, env=env, check=True)


def run(data, inputs, builtin=False):
    kw = {"experimental_op_resolver_type": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES} if builtin else {}
    it = Interpreter(model_content=data, num_threads=1, **kw)
    it.allocate_tensors()
    for d, v in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], v)
    it.invoke()
    delegated = any(o["op_name"] == "DELEGATE" for o in it._get_ops_details())
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()], delegated


def generate(folder):
    with open(os.path.join(folder, "cases.json")) as f:
        cases = json.load(f)["cases"]
    entries, files = [], {}
    for c in cases:
        name = c["name"]
        with open(os.path.join(folder, c["model"]), "rb") as f:
            data = f.read()
        inputs = [np.load(os.path.join(folder, i)) for i in c["inputs"]]
        try:
            outputs, delegated = run(data, inputs)
            kernels = "xnnpack" if delegated else "builtin"
        except RuntimeError as e:
            if "failed to prepare" not in str(e):
                raise
            outputs, _ = run(data, inputs, builtin=True)
            kernels = "builtin (the default interpreter fails to prepare it)"
        builtin, _ = run(data, inputs, builtin=True)
        entry = {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "kernels": kernels,
                 "builtinDiffers": int(sum(int(np.sum(a != b)) for a, b in zip(outputs, builtin))), "outputs": []}
        for i, v in enumerate(outputs):
            entry["outputs"].append(f"{name}__out{i}.npy")
            files[entry["outputs"][-1]] = v
        entries.append(entry)
        print(f"{name:48} {kernels:8} builtin differs in {entry['builtinDiffers']}")
    manifest = {"generator": "Tests/TasksVisionEngineTests/QuantizedOpCases.swift",
                "reference": "tools/reference_quantized_ops.py",
                "interpreter": f"ai-edge-litert {importlib.metadata.version('ai-edge-litert')}, 1 thread",
                "cases": entries}
    return manifest, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with the committed fixtures, write nothing")
    ap.add_argument("--cases", help="a folder QuantizedOpCaseTests wrote the cases into (default: have it write them)")
    args = ap.parse_args()
    if args.cases:
        manifest, files = generate(args.cases)
    else:
        with tempfile.TemporaryDirectory(prefix="quantized_ops") as folder:
            write_cases(folder)
            manifest, files = generate(folder)
    text = json.dumps(manifest, indent=1) + "\n"
    if args.check:
        changed = [n for n, v in files.items()
                   if not os.path.exists(os.path.join(OUT, n)) or not np.array_equal(np.load(os.path.join(OUT, n)), v)]
        with open(os.path.join(OUT, "manifest.json")) as f:
            if f.read() != text:
                changed.append("manifest.json")
        print("changed:", changed or "nothing")
        return 1 if changed else 0
    os.makedirs(OUT, exist_ok=True)
    for stale in set(os.listdir(OUT)) - set(files) - {"manifest.json"}:
        os.remove(os.path.join(OUT, stale))
    for name, v in files.items():
        np.save(os.path.join(OUT, name), v)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
