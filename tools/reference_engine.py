#!/usr/bin/env python3
"""Generates the engine parity fixtures: inputs and TFLite interpreter outputs per model.

    python3 tools/reference_engine.py            # writes Tests/Fixtures/engine/
    python3 tools/reference_engine.py --models selfie_segmenter   # those models' fixtures and manifest entries

    # XNNPACK's results on the first Zen (AMD family 23, models 00h-1Fh), whose GEMMs sum in their own order:
    qemu-x86_64-static -cpu EPYC python3 tools/reference_engine.py --emulated EPYC \
        --models hand_landmark_lite face_detection_short_range gesture_embedder canned_gesture_classifier

`--emulated CPU` writes Tests/Fixtures/engine/emulated-CPU/ (outputs and manifest; photo inputs stay in engine/)
and records CPU in its manifest; run it under `qemu-x86_64-static -cpu CPU` (qemu 7.2: AVX2 and exact FMA).

Needs `pip install ai-edge-litert numpy pillow` and a filled Models/ (tools/setup.sh).
Outputs come from the TFLite interpreter with its default XNNPACK delegate, one thread.

Random inputs are not stored: they come from a splitmix64 generator that the Swift
tests reproduce bit for bit (see `random_floats`; a uint8 input takes the floor of values in
[0, 256)). Photo inputs are stored as the resized 8-bit RGB pixels and normalized in both places
with the same float32 ops (a uint8 input takes the pixels as they are).
Models that share weights (Tasks copies with extra metadata) share fixtures; the
script checks that TFLite gives them bit-identical outputs first.
"""
import json, os, sys
import numpy as np
from PIL import Image
from ai_edge_litert.interpreter import Interpreter, OpResolverType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "Models")
IMAGES = os.path.join(ROOT, "..", "shared", "testdata", "images")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "engine")

MASK64 = (1 << 64) - 1
LARGE_OUTPUT = 50_000
LARGE_STRIDE = 4


def random_floats(seed, count, low, high):
    """splitmix64 of (seed * 2^32 + i), top 24 bits as a float in [0,1), scaled in float32."""
    i = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (np.uint64(seed) * np.uint64(1 << 32) + i + np.uint64(0x9E3779B97F4A7C15))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / (1 << 24))
    return np.float32(low) + np.float32(high - low) * u


# key -> (files with the same weights, input kind, normalization (mean, std), photos)
HANDS = ["hand_open_palm_1.png", "hands_two_1.png"]
FACES = ["face_frontal_1.png", "faces_group_1.png"]
POSES = ["pose_standing_1.png", "pose_yoga_1.png"]
SELFIES = ["pose_standing_1.png", "faces_group_1.png"]
SCENES = ["negative_animals_1.png", "pose_two_people_1.png"]
SPECS = [
    ("palm_detection_full", ["palm_detection_full.tflite", "hand_detector.tflite"], "image", (0.0, 255.0), HANDS),
    ("palm_detection_lite", ["palm_detection_lite.tflite"], "image", (0.0, 255.0), HANDS),
    ("hand_landmark_full", ["hand_landmark_full.tflite"], "image", (0.0, 255.0), HANDS),
    ("hand_landmark_lite", ["hand_landmark_lite.tflite"], "image", (0.0, 255.0), HANDS),
    ("face_detection_short_range", ["face_detection_short_range.tflite", "blaze_face_short_range.tflite"], "image",
     (127.5, 127.5), FACES),
    ("face_detection_full_range_sparse", ["face_detection_full_range_sparse.tflite"], "image", (127.5, 127.5), FACES),
    ("face_detection_full_range", ["face_detection_full_range.tflite"], "image", (127.5, 127.5), FACES),
    ("pose_detection", ["pose_detection.tflite", "pose_detector.tflite"], "image", (127.5, 127.5), POSES),
    ("pose_landmark_full", ["pose_landmark_full.tflite", "pose_landmarks_detector_full.tflite"], "image", (0.0, 255.0),
     POSES),
    ("pose_landmark_lite", ["pose_landmark_lite.tflite", "pose_landmarks_detector.tflite"], "image", (0.0, 255.0),
     POSES),
    # The selfie models take RGB in [0, 1] (MediaPipe's ImageSegmenter: the metadata's mean 0, std 255).
    # selfie_segmentation.tflite (mediapipe 0.10.14) is the same network as the Tasks model, its metadata apart.
    ("selfie_segmenter", ["selfie_segmenter.tflite", "selfie_segmentation.tflite"], "image", (0.0, 255.0), SELFIES),
    ("selfie_segmentation_landscape", ["selfie_segmentation_landscape.tflite"], "image", (0.0, 255.0), SELFIES),
    ("gesture_embedder", ["gesture_embedder.tflite"], "vector", None, None),
    ("canned_gesture_classifier",
     ["canned_gesture_classifier.tflite",
      "hand_gesture_recognizer_with_custom_classifier.task:canned_gesture_classifier.tflite"],
     "vector", None, None),
    ("custom_gesture_classifier",
     ["hand_gesture_recognizer_with_custom_classifier.task:custom_gesture_classifier.tflite"], "vector", None, None),
    ("custom_gesture_classifier_modelmaker_testdata", ["custom_gesture_classifier_modelmaker_testdata.tflite"],
     "vector", None, None),
    ("face_landmarks_detector", ["face_landmarker.task:face_landmarks_detector.tflite"], "image", (0.0, 255.0), FACES),
    # Blendshapes: random landmarks in [-1, 1] (the model centres and scales them itself).
    ("face_blendshapes", ["face_landmarker.task:face_blendshapes.tflite"], "vector", None, None),
    # The int8 models (uint8 pixels in): every output must be TFLite-XNNPACK's bytes on every kernel set.
    ("efficientnet_lite0", ["efficientnet_lite0.tflite"], "uint8image", None, SCENES),
    ("efficientdet_lite0", ["efficientdet_lite0.tflite"], "uint8image", None, SCENES),
]


def large_output_stride(key, size, last):
    """Every LARGE_STRIDE-th value of a large output; for the int8 models a prime stride that no row length divides
    (so every class and box coordinate is sampled), keeping about LARGE_OUTPUT values."""
    if size <= LARGE_OUTPUT:
        return 1
    if not key.startswith("efficient"):
        return LARGE_STRIDE
    p = max(2, -(-size // LARGE_OUTPUT))
    while any(p % d == 0 for d in range(2, int(p ** 0.5) + 1)) or last % p == 0:
        p += 1
    return p


def model_bytes(path):
    import zipfile, io
    parts = path.split(":")
    data = open(os.path.join(MODELS, parts[0]), "rb").read()
    for member in parts[1:]:
        data = zipfile.ZipFile(io.BytesIO(data)).read(member)
    return data


def run(data, inputs, resolver=None):
    kwargs = {} if resolver is None else {"experimental_op_resolver_type": resolver}
    interp = Interpreter(model_content=data, num_threads=1, **kwargs)
    interp.allocate_tensors()
    for detail, value in zip(interp.get_input_details(), inputs):
        interp.set_tensor(detail["index"], value.reshape(detail["shape"]))
    interp.invoke()
    return [interp.get_tensor(d["index"]).astype(np.float32) for d in interp.get_output_details()]


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--emulated", metavar="CPU", help="the qemu CPU model this runs under")
    ap.add_argument("--models", nargs="+", help="fixture keys (default: all)")
    args = ap.parse_args()
    out = os.path.join(OUT, f"emulated-{args.emulated}") if args.emulated else OUT
    os.makedirs(out, exist_ok=True)
    manifest = []
    for key, files, kind, norm, photos in SPECS:
        if args.models and key not in args.models:
            continue
        data = model_bytes(files[0])
        probe = Interpreter(model_content=data)
        in_details = probe.get_input_details()
        shapes = [list(map(int, d["shape"])) for d in in_details]
        cases = []
        # Random inputs: image models in their normalized range; vector models in a plausible range.
        seeds = {"image": [1], "uint8image": [1, 2] if key == "efficientnet_lite0" else [1]}.get(kind, [1, 2, 3])
        for seed in seeds:
            specs, values = [], []
            for j, shape in enumerate(shapes):
                count = int(np.prod(shape))
                if kind == "uint8image":
                    values.append(np.floor(random_floats(seed * 16 + j, count, 0.0, 256.0)).astype(np.uint8))
                    specs.append({"kind": "random", "seed": seed * 16 + j, "low": 0.0, "high": 256.0,
                                  "dtype": "uint8"})
                    continue
                if kind == "image":
                    low, high = ((0.0, 1.0) if norm[0] == 0.0 else (-1.0, 1.0))
                else:
                    low, high = (-1.0, 1.0) if count > 1 else (0.0, 1.0)
                values.append(random_floats(seed * 16 + j, count, low, high))
                specs.append({"kind": "random", "seed": seed * 16 + j, "low": low, "high": high})
            cases.append((f"random{seed}", specs, values))
        if kind in ("image", "uint8image"):
            h, w = shapes[0][1], shapes[0][2]
            for photo in photos:
                img = Image.open(os.path.join(IMAGES, photo)).convert("RGB").resize((w, h), Image.BILINEAR)
                pixels = np.asarray(img, dtype=np.uint8)
                stem = os.path.splitext(photo)[0]
                pix_name = f"pixels__{stem}_{w}x{h}.npy"
                if args.emulated:
                    if not np.array_equal(np.load(os.path.join(OUT, pix_name)), pixels):
                        sys.exit(f"{pix_name} differs from the committed one")
                else:
                    np.save(os.path.join(OUT, pix_name), pixels)
                if kind == "uint8image":
                    cases.append((stem, [{"kind": "pixels", "file": pix_name, "dtype": "uint8"}], [pixels]))
                    continue
                mean, std = np.float32(norm[0]), np.float32(norm[1])
                value = (pixels.astype(np.float32) - mean) / std
                cases.append((stem, [{"kind": "pixels", "file": pix_name, "mean": float(mean), "std": float(std)}],
                              [value]))
        entries = []
        for name, specs, values in cases:
            outputs = run(data, values)
            for other in files[1:]:
                alt = run(model_bytes(other), values)
                if not all(np.array_equal(a, b) for a, b in zip(outputs, alt)):
                    sys.exit(f"{other} does not give the same outputs as {files[0]}")
            # TFLite's own optimized kernels without XNNPACK: how far two correct float32
            # implementations of this graph drift apart (deep models amplify rounding).
            # Not for models with MediaPipe's custom ops (Convolution2DTransposeBias): only XNNPACK's delegate runs
            # those in ai-edge-litert, so there is no second implementation to measure (spread 0: tolerance 1e-4).
            try:
                builtin = run(data, values, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
            except RuntimeError as e:
                if "unresolved custom op" not in str(e):
                    raise
                builtin = outputs
            names = []
            for i, o in enumerate(outputs):
                spread = float(np.max(np.abs(o - builtin[i]) / np.maximum(1.0, np.abs(o)))) if o.size else 0.0
                fname = f"{key}__{name}_out{i}.npy"
                # Large outputs (segmentation, heatmaps) keep every LARGE_STRIDE-th element to bound fixture size.
                stride = large_output_stride(key, o.size, o.shape[-1] if o.ndim else 1)
                np.save(os.path.join(out, fname), o.reshape(-1)[::stride] if stride > 1 else o)
                names.append({"file": fname, "shape": list(o.shape), "stride": stride, "tfliteSpread": spread})
            entries.append({"name": name, "inputs": specs, "outputs": names})
        manifest.append({"key": key, "files": files, "cases": entries})
        print(f"{key}: {len(entries)} cases")
    path = os.path.join(out, "manifest.json")
    if args.models and os.path.exists(path):
        # Only the models asked for are new: the others keep their committed entries, in SPECS order.
        fresh = {m["key"]: m for m in manifest}
        with open(path) as f:
            kept = {m["key"]: m for m in json.load(f)["models"]}
        kept.update(fresh)
        manifest = [kept[key] for key, *_ in SPECS if key in kept]
    interpreter = "ai-edge-litert (XNNPACK, 1 thread)" + (f", under qemu -cpu {args.emulated}" if args.emulated else "")
    with open(path, "w") as f:
        json.dump({"generator": "tools/reference_engine.py", "interpreter": interpreter, "models": manifest}, f,
                  indent=1)


if __name__ == "__main__":
    main()
