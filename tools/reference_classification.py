#!/usr/bin/env python3
"""Runs MediaPipe 1.2.3's ImageClassifier and ImageEmbedder on our photos and writes the fixtures the Swift tests
compare against, in Tests/Fixtures/classification/ (each under the 1 MiB the repository's checks allow):
classify_int8.json and classify_float.json, the classify section of each model; classification.json, the labels
and every other section.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/reference_classification.py [--calibrated DIR | --calibrated-only DIR]

Models from Models/ (tools/setup.sh): efficientnet_lite0.tflite (uint8 in, uint8 out: ImageClassifier's default)
and efficientnet_lite0_float32.tflite (float; MediaPipe's ImageEmbedder takes it too, giving its 1000 softmax
values as the embedding).

Inputs: every photo of ../shared/testdata/images (PIL's RGB pixels) and Google's burger.jpg and burger_crop.jpg
(mp.Image.create_from_file, as MediaPipe's tests load them); four photos also at rotation_degrees 90, 180 and 270;
regions of interest (MediaPipe's RectF, in the stored image, upright and turned); a 20-frame sequence in video mode
(33 ms apart); Google's turned burger stand-in (the photo's pixels turned 90 degrees clockwise, given with
rotation_degrees 270, as tests/GoogleTestsPortTests' Port.turnedImage makes it).

Stored compactly, base64 of little-endian arrays:
- classify: every category's score by index (float32; the uint8 model's as score * 256, one byte each, exact as
  its scores are multiples of 1/256) and MediaPipe's order of the 1000 categories (uint16 indices), default
  options (max_results -1: every category, sorted as its std::sort leaves them);
- options: the categories (index, score) MediaPipe returns with max_results, score_threshold, allow and deny lists;
- embed: the embedding (float32, or int8 when quantized) with l2_normalize and quantize on and off;
- cosine: ImageEmbedder.cosine_similarity of pairs, for the ports of Google's iOS tests.

--calibrated DIR also runs the classifier on the score-calibrated test models ScoreCalibrationParityTests writes
(TASKSVISION_WRITE_CALIBRATED_MODELS=DIR swift test --filter ScoreCalibrationParityTests), storing each model's
SHA-256 with its scores; --calibrated-only DIR runs just those, keeping the rest of the fixture.
"""
import base64, hashlib, json, os, sys
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
from mediapipe.tasks.python.components.containers import rect as rect_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
GOOGLE = os.path.join(SHARED, "testdata", "google")
SEQUENCE = "pose_dance_1"
SEQUENCE_FRAMES = 20
OUT = os.path.join(ROOT, "Tests", "Fixtures", "classification")
INT8 = "efficientnet_lite0.tflite"
FLOAT = "efficientnet_lite0_float32.tflite"
TURNED = ["pose_standing_1.png", "hand_victory_1.png", "negative_animals_1.png", "faces_two_1.png"]
# (file, rotation_degrees, RectF left, top, right, bottom in the stored image): binary fractions, exact in any form.
ROIS = [("negative_animals_1.png", 0, (0.0, 0.0, 0.5, 1.0)), ("faces_two_1.png", 0, (0.25, 0.125, 0.75, 0.875)),
        ("pose_standing_1.png", 90, (0.125, 0.25, 0.875, 0.625)), ("hand_victory_1.png", 270, (0.5, 0.0, 1.0, 0.5))]
EMBED_FILES = ["negative_animals_1.png", "negative_coffee_1.png", "pose_standing_1.png", "faces_group_1.png",
               "hand_open_palm_1.png", "google/burger.jpg", "google/burger_crop.jpg"]
# The classify section, a file per model.
CLASSIFY_FILES = {INT8: "classify_int8.json", FLOAT: "classify_float.json"}
OPTION_FILES = ["negative_animals_1.png", "negative_outdoor_1.png", "google/burger.jpg", "pose_yoga_1.png"]


def b64(array):
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def photos():
    with open(os.path.join(IMAGES, "MANIFEST.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return sorted(r[0] for r in rows if r and r[0].endswith(".png")) + ["google/burger.jpg", "google/burger_crop.jpg"]


def load(name):
    if name.startswith("google/"):
        return mp.Image.create_from_file(os.path.join(GOOGLE, name[len("google/"):]))
    path = name if os.path.isabs(name) else os.path.join(IMAGES, name)
    pixels = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB")))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)


def turned(name):
    """The photo's pixels turned 90 degrees clockwise (shown upright again with rotation_degrees 270)."""
    image = load(name)
    pixels = np.ascontiguousarray(np.rot90(np.asarray(image.numpy_view())[:, :, :3], k=-1))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)


def model_path(name):
    path = name if os.path.isabs(name) else os.path.join(ROOT, "Models", name)
    return path if os.path.exists(path) else os.path.join(SHARED, "models", name)


def processing(rotation=0, roi=None):
    r = rect_module.RectF(left=roi[0], top=roi[1], right=roi[2], bottom=roi[3]) if roi else None
    return vision.ImageProcessingOptions(region_of_interest=r, rotation_degrees=rotation)


def classifier(model, mode=vision.RunningMode.IMAGE, **options):
    return vision.ImageClassifier.create_from_options(vision.ImageClassifierOptions(
        base_options=BaseOptions(model_asset_path=model_path(model)), running_mode=mode, **options))


def embedder(model, mode=vision.RunningMode.IMAGE, **options):
    return vision.ImageEmbedder.create_from_options(vision.ImageEmbedderOptions(
        base_options=BaseOptions(model_asset_path=model_path(model)), running_mode=mode, **options))


def scores_entry(result, model):
    """Every score by index, and MediaPipe's order."""
    cats = result.classifications[0].categories
    scores = np.zeros(len(cats), dtype=np.float32)
    for c in cats:
        scores[c.index] = c.score
    order = np.array([c.index for c in cats], dtype="<u2")
    entry = {"head": result.classifications[0].head_name, "count": len(cats), "order": b64(order)}
    if model == INT8:
        q = scores * np.float32(256)
        assert np.all(q == np.round(q)) and q.max() <= 255, "uint8 model scores are not multiples of 1/256"
        entry["scoresQ8"] = b64(q.astype(np.uint8))
    else:
        entry["scores"] = b64(scores.astype("<f4"))
    return entry


def categories(result):
    return [[c.index, float(c.score)] for c in result.classifications[0].categories]


def embedding(result, quantize):
    e = np.asarray(result.embeddings[0].embedding)
    if quantize:
        return {"quantized": b64(e.astype(np.uint8).view(np.int8))}
    return {"float": b64(e.astype("<f4"))}


def classify_cases(model, names):
    out = []
    with classifier(model) as task:
        for name in names:
            image = load(name)
            for rot in [0, 90, 180, 270] if name in TURNED else [0]:
                out.append({"model": model, "file": name, "rotation": rot,
                            **scores_entry(task.classify(image, processing(rot)), model)})
        for name, rot, roi in ROIS:
            out.append({"model": model, "file": name, "rotation": rot, "roi": list(roi),
                        **scores_entry(task.classify(load(name), processing(rot, roi)), model)})
        out.append({"model": model, "file": "google/burger.jpg", "turned": True, "rotation": 270,
                    **scores_entry(task.classify(turned("google/burger.jpg"), processing(270)), model)})
    frames = sorted(f for f in os.listdir(os.path.join(SHARED, "testdata", "sequences", SEQUENCE))
                    if f.endswith(".png"))[:SEQUENCE_FRAMES]
    with classifier(model, vision.RunningMode.VIDEO) as task:
        for i, frame in enumerate(frames):
            image = load(os.path.join(SHARED, "testdata", "sequences", SEQUENCE, frame))
            out.append({"model": model, "sequence": SEQUENCE, "file": frame, "timestampMs": i * 33, "rotation": 0,
                        **scores_entry(task.classify_for_video(image, i * 33), model)})
    print(model, len(out), "classifications", flush=True)
    return out


def option_cases():
    variants = [{"max_results": 3}, {"max_results": 5}, {"max_results": 100}, {"score_threshold": 0.01},
                {"max_results": 4, "score_threshold": 0.002}, {"category_allowlist": ["cheeseburger", "guacamole",
                 "meat loaf", "Pembroke", "crane", "maillot", "not a label"]},
                {"category_denylist": ["cheeseburger", "bagel", "Pembroke", "kit fox"], "max_results": 3}]
    out = []
    for model in [INT8, FLOAT]:
        for options in variants:
            with classifier(model, **options) as task:
                for name in OPTION_FILES:
                    out.append({"model": model, "file": name, "options": options,
                                "categories": categories(task.classify(load(name)))})
    return out


def embed_cases():
    out, cosine = [], []
    for l2 in [False, True]:
        for quantize in [False, True]:
            with embedder(FLOAT, l2_normalize=l2, quantize=quantize) as task:
                results = {}
                for name in EMBED_FILES:
                    results[name] = task.embed(load(name))
                    out.append({"model": FLOAT, "file": name, "rotation": 0, "l2": l2, "quantize": quantize,
                                **embedding(results[name], quantize)})
                for name, rot, roi in ROIS[1:3]:
                    r = task.embed(load(name), processing(rot, roi))
                    out.append({"model": FLOAT, "file": name, "rotation": rot, "roi": list(roi), "l2": l2,
                                "quantize": quantize, **embedding(r, quantize)})
                # Google's MPPImageEmbedderTests: burger against its crop, its left 5/6, its turned copy.
                burger, crop = results["google/burger.jpg"], results["google/burger_crop.jpg"]
                roi = task.embed(load("google/burger.jpg"), processing(0, (0.0, 0.0, 0.833333, 1.0)))
                rotated = task.embed(turned("google/burger.jpg"), processing(270))
                rotated_roi = task.embed(turned("google/burger.jpg"), processing(270, (0.0, 0.0, 1.0, 0.833333)))
                sim = vision.ImageEmbedder.cosine_similarity
                cosine.append({"model": FLOAT, "l2": l2, "quantize": quantize,
                               "burgerCrop": sim(burger.embeddings[0], crop.embeddings[0]),
                               "roiCrop": sim(roi.embeddings[0], crop.embeddings[0]),
                               "turnedBurger": sim(rotated.embeddings[0], burger.embeddings[0]),
                               "turnedRoiCrop": sim(rotated_roi.embeddings[0], crop.embeddings[0])})
    with embedder(FLOAT, vision.RunningMode.VIDEO) as task:
        for i, frame in enumerate(sorted(os.listdir(os.path.join(SHARED, "testdata", "sequences", SEQUENCE)))[:5]):
            r = task.embed_for_video(load(os.path.join(SHARED, "testdata", "sequences", SEQUENCE, frame)), i * 33)
            out.append({"model": FLOAT, "sequence": SEQUENCE, "file": frame, "timestampMs": i * 33, "rotation": 0,
                        "l2": False, "quantize": False, **embedding(r, False)})
    # The uint8 model as an embedder: its dequantized softmax.
    for quantize in [False, True]:
        with embedder(INT8, quantize=quantize) as task:
            for name in EMBED_FILES[:3]:
                out.append({"model": INT8, "file": name, "rotation": 0, "l2": False, "quantize": quantize,
                            **embedding(task.embed(load(name)), quantize)})
    print(len(out), "embeddings", flush=True)
    return out, cosine


def calibrated_cases(folder):
    out = []
    for model in sorted(f for f in os.listdir(folder) if f.endswith(".tflite")):
        path = os.path.join(folder, model)
        with open(path, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        with classifier(path) as task:
            for name in EMBED_FILES:
                out.append({"model": model, "sha256": sha, "file": name, "categories": categories(task.classify(
                    load(name)))})
    return out


def write(name, doc):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", os.path.join(OUT, name), f"{os.path.getsize(os.path.join(OUT, name)) / 1e3:.0f} kB", flush=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    if "--calibrated-only" in sys.argv:
        # Only the calibrated models' entries, the rest of the fixture kept.
        path = os.path.join(OUT, "classification.json")
        with open(path) as f:
            doc = json.load(f)
        doc["calibrated"] = calibrated_cases(sys.argv[sys.argv.index("--calibrated-only") + 1])
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print("wrote", len(doc["calibrated"]), "calibrated entries", flush=True)
        return
    names = photos()
    doc = {"mediapipe": mp.__version__, "models": [INT8, FLOAT], "sequence": SEQUENCE, "labels": []}
    with classifier(FLOAT) as task:
        first = task.classify(load(names[0])).classifications[0].categories
        labels = [None] * len(first)
        for c in first:
            labels[c.index] = c.category_name
        doc["labels"] = labels
    for model, name in CLASSIFY_FILES.items():
        write(name, {"mediapipe": mp.__version__, "model": model, "sequence": SEQUENCE,
                     "classify": classify_cases(model, names)})
    doc["options"] = option_cases()
    doc["embed"], doc["cosine"] = embed_cases()
    if "--calibrated" in sys.argv:
        doc["calibrated"] = calibrated_cases(sys.argv[sys.argv.index("--calibrated") + 1])
    else:
        old = os.path.join(OUT, "classification.json")
        if os.path.exists(old):
            with open(old) as f:
                doc["calibrated"] = json.load(f).get("calibrated", [])
    write("classification.json", doc)


if __name__ == "__main__":
    main()
