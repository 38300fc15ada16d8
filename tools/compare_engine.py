#!/usr/bin/env python3
"""Checks `vision model run` against TFLite-XNNPACK (ai-edge-litert, one thread) on fresh inputs, under
every kernel set this CPU supports: per model, input and set, how many output values are the same bits,
the largest difference in ulp, and the largest scaled difference |ours - tflite| / max(1, |tflite|), as the
parity tests scale it.

    swift build -c release && python3 tools/compare_engine.py [--seed N] [--sets avx512 avx2 portable]

`--emulate CPU` runs TFLite under `qemu-x86_64-static -cpu CPU` (one of EMULATED: EPYC-Milan for a Zen 3, EPYC
for a Zen 1, Haswell, ...): XNNPACK then picks the kernels it would pick on that CPU. Ours run natively, forced to
a set (`--sets avx2`), told by TASKSVISION_CPUINFO that they run on that CPU (its vendor, family and model; only
the flags this machine has too). qemu computes each fused multiply-add exactly, so the bits are that CPU's. qemu
7.2 has no AVX-512, so an AVX-512 Xeon cannot be emulated this way.

Inputs are new every seed: uniform noise over the model's input range, and a test photo (a random one of
../shared/testdata/images, a random crop, resized) normalized as the tasks normalize it. Nothing here is a
fixture; the tests hold the committed ones. Needs `pip install ai-edge-litert numpy pillow`.
"""
import argparse, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
VISION = os.path.join(ROOT, ".build", "release", "vision")
# model -> input range of its image input ((0, 1) or (-1, 1)); None: not an image; "uint8": a quantized model's
# uint8 pixels (noise over all 256 values, or a photo's pixels as they are).
MODELS = {
    "palm_detection_full.tflite": (0, 1), "palm_detection_lite.tflite": (0, 1),
    "hand_landmark_full.tflite": (0, 1), "hand_landmark_lite.tflite": (0, 1),
    "face_detection_short_range.tflite": (-1, 1), "face_detection_full_range_sparse.tflite": (-1, 1),
    "face_detection_full_range.tflite": (-1, 1), "pose_detection.tflite": (-1, 1),
    "pose_landmark_full.tflite": (0, 1), "pose_landmark_lite.tflite": (0, 1),
    "gesture_embedder.tflite": None, "canned_gesture_classifier.tflite": None,
    "face_landmarker.task:face_landmarks_detector.tflite": (0, 1),
    "face_landmarker.task:face_blendshapes.tflite": None,
    "selfie_segmenter.tflite": (0, 1), "selfie_segmentation.tflite": (0, 1),
    "selfie_segmentation_landscape.tflite": (0, 1),
    "deeplab_v3.tflite": (-1, 1), "efficientnet_lite0_float32.tflite": (-1, 1),
    "holistic_landmarker_assembled.task:hand_roi_refinement.tflite": (0, 1),
    "efficientnet_lite0.tflite": "uint8", "efficientdet_lite0.tflite": "uint8",
}


# qemu CPU model -> (vendor_id, cpu family, model) as /proc/cpuinfo on that CPU reads; all have AVX2 and FMA3.
EMULATED = {
    "EPYC": ("AuthenticAMD", 23, 1), "EPYC-Rome": ("AuthenticAMD", 23, 49), "EPYC-Milan": ("AuthenticAMD", 25, 1),
    "Haswell": ("GenuineIntel", 6, 60), "Broadwell": ("GenuineIntel", 6, 61),
    "Skylake-Client": ("GenuineIntel", 6, 94), "Dhyana": ("HygonGenuine", 24, 0),
}
EMULATED_FLAGS = "fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt avx f16c fma avx2 bmi1 bmi2"


def emulated_cpuinfo(cpu, directory):
    vendor, family, model = EMULATED[cpu]
    path = os.path.join(directory, "cpuinfo")
    with open(path, "w") as f:
        f.write(f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
                f"model name\t: emulated {cpu}\nflags\t\t: {EMULATED_FLAGS}\n")
    return path


def ulps(a, b):
    """Distance in representable floats between float32 arrays (same sign order as the integers)."""
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return np.abs(ia - ib)


def photo_input(shape, lo, hi, rng, pixels_only=False):
    names = sorted(n for n in os.listdir(os.path.join(SHARED, "testdata", "images")) if n.endswith((".png", ".jpg")))
    img = Image.open(os.path.join(SHARED, "testdata", "images", names[rng.integers(len(names))])).convert("RGB")
    w, h = img.size
    side = int(min(w, h) * rng.uniform(0.5, 1.0))
    x, y = rng.integers(0, w - side + 1), rng.integers(0, h - side + 1)
    img = img.crop((x, y, x + side, y + side)).resize((shape[2], shape[1]), Image.BILINEAR)
    if pixels_only:
        return np.asarray(img, dtype=np.uint8).reshape(shape)
    pixels = np.asarray(img, dtype=np.float32)
    scaled = pixels / np.float32(255.0) if lo == 0 else pixels / np.float32(127.5) - np.float32(1.0)
    return scaled.reshape(shape).astype(np.float32)


def tflite_path(path, directory):
    """A file TFLite can open: `bundle.task:member.tflite` (as `vision` reads it) is unpacked into `directory`."""
    if ":" not in os.path.basename(path):
        return path
    import zipfile
    bundle, member = path.rsplit(":", 1)
    target = os.path.join(directory, member)
    if not os.path.exists(target):
        with open(target, "wb") as f:
            f.write(zipfile.ZipFile(bundle).read(member))
    return target


def inputs_for(name, details, rng):
    rangeof = MODELS[name]
    if rangeof == "uint8":
        return {"noise": [rng.integers(0, 256, size=d["shape"], dtype=np.uint8) for d in details],
                "photo": [photo_input(details[0]["shape"], 0, 255, rng, pixels_only=True)]}
    cases = {"noise": [rng.uniform(*(rangeof or (-1, 1)), size=d["shape"]).astype(np.float32) for d in details]}
    if rangeof is not None:
        cases["photo"] = [photo_input(details[0]["shape"], *rangeof, rng)]
    return cases


def reference_run(path, inputs, out):
    """TFLite's outputs for `inputs` (.npy files), saved as out/K.npy; the child half of --emulate."""
    it = Interpreter(model_path=path, num_threads=1)
    it.allocate_tensors()
    for d, name in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], np.load(name))
    it.invoke()
    for k, d in enumerate(it.get_output_details()):
        np.save(os.path.join(out, f"{k}.npy"), it.get_tensor(d["index"]).astype(np.float32))


def emulated_outputs(cpu, path, inputs, out, count):
    os.makedirs(out, exist_ok=True)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import compare_engine as c; "
            "c.reference_run(sys.argv[2], sys.argv[4:], sys.argv[3])")
    subprocess.run(["qemu-x86_64-static", "-cpu", cpu, sys.executable, "-c", code, os.path.dirname(__file__),
                    path, out, *inputs], check=True, capture_output=True)
    return [np.load(os.path.join(out, f"{k}.npy")).ravel() for k in range(count)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    ap.add_argument("--sets", nargs="+", default=None, help="kernel sets (default: every one this CPU supports)")
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--emulate", metavar="CPU", choices=sorted(EMULATED),
                    help="run TFLite under qemu-x86_64-static -cpu CPU, ours as on that CPU")
    args = ap.parse_args()
    scratch = tempfile.TemporaryDirectory()
    identity = {"TASKSVISION_CPUINFO": emulated_cpuinfo(args.emulate, scratch.name)} if args.emulate else {}
    sets = args.sets or subprocess.run([VISION, "kernels", "--supported"], check=True, capture_output=True,
                                       text=True, env=dict(os.environ, **identity)).stdout.split()
    rng = np.random.default_rng(args.seed)
    print(f"seed {args.seed}; kernel sets {' '.join(sets)}" + (f"; TFLite on emulated {args.emulate}"
                                                                if args.emulate else ""))
    print(f"{'model':40} {'input':6} {'set':9} {'out':>3} {'same bits':>11} {'max ulp':>8} {'max scaled':>10}")
    worst = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            path = os.path.join(ROOT, "Models", name)
            it = Interpreter(model_path=tflite_path(path, tmp), num_threads=1)
            it.allocate_tensors()
            details = it.get_input_details()
            for case, values in inputs_for(name, details, rng).items():
                flags = []
                for i, (d, v) in enumerate(zip(details, values)):
                    it.set_tensor(d["index"], v)
                    flags += ["--input", os.path.join(tmp, f"in{i}.npy")]
                    np.save(flags[-1], v)
                if args.emulate:
                    refs = emulated_outputs(args.emulate, tflite_path(path, tmp), flags[1::2], os.path.join(tmp, "tflite"),
                                            len(it.get_output_details()))
                else:
                    it.invoke()
                    refs = [it.get_tensor(d["index"]).astype(np.float32).ravel() for d in it.get_output_details()]
                for kernel_set in sets:
                    out = os.path.join(tmp, kernel_set)
                    env = dict(os.environ, TASKSVISION_KERNELS=kernel_set, **identity)
                    subprocess.run([VISION, "model", "run", *flags, "--output", out, path], check=True,
                                   capture_output=True, env=env)
                    for k, ref in enumerate(refs):
                        ours = np.load(os.path.join(out, f"{k}.npy")).astype(np.float32).ravel()
                        same = int(np.sum(ours.view(np.int32) == ref.view(np.int32)))
                        ulp = int(ulps(ours, ref).max()) if ref.size else 0
                        diff = np.abs(ours.astype(np.float64) - ref) / np.maximum(1.0, np.abs(ref.astype(np.float64)))
                        scaled = float(diff.max()) if ref.size else 0.0
                        print(f"{name:40} {case:6} {kernel_set:9} {k:3d} {same:5d}/{ref.size:<5d} {ulp:8d} "
                              f"{scaled:10.2e}",
                              flush=True)
                        w = worst.setdefault(kernel_set, [0, 0.0, 0, 0])
                        w[0], w[1] = max(w[0], ulp), max(w[1], scaled)
                        w[2] += same
                        w[3] += ref.size
    for kernel_set, (ulp, scaled, same, total) in worst.items():
        print(f"{kernel_set}: {same}/{total} values the same bits, max {ulp} ulp, max scaled {scaled:.2e}")


if __name__ == "__main__":
    sys.exit(main())
