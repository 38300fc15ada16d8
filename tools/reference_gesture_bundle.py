#!/usr/bin/env python3
"""MediaPipe 1.2.3 on a gesture recognizer bundle that `vision gestures train` wrote.

Writes Tests/Fixtures/training/mediapipe_trained_bundle.json, which
GestureBundleParityTests compares with this project's results:
  - the bundle's SHA-256 (the test retrains it from Tests/Fixtures/training/gesture_training_landmarks.csv
    and checks it gets the same bytes before comparing);
  - MediaPipe's GestureRecognizer (image mode, default options) on each image: per hand, the
    gesture's name and score, the handedness and the landmarks;
  - the same with the canned classifier allowed only None (the custom classifier's own decisions),
    and how many training hands MediaPipe classifies as labeled that way;
  - the custom classifier as the official generated readers see it (ai-edge-litert's TFLite schema,
    MediaPipe's metadata schema) and Python's zipfile its labels;
  - ai-edge-litert's interpreter on the bundle's custom_gesture_classifier.tflite alone, for the
    embeddings of Tests/Fixtures/training/gesture_head_reference.json: the float32 bits of each output.

  python3 -m venv /tmp/mp && /tmp/mp/bin/pip install mediapipe==1.2.3 ai-edge-litert
  vision gestures train ../shared/testdata/gesture_training --epochs 100 --out /tmp/g.task
  /tmp/mp/bin/python tools/reference_gesture_bundle.py /tmp/g.task
"""
import argparse
import hashlib
import io
import json
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))


def images():
    """The training photos, then the project's hand test photos (not trained on)."""
    out = []
    training = os.path.join(SHARED, "testdata", "gesture_training")
    for label in sorted(d for d in os.listdir(training) if os.path.isdir(os.path.join(training, d))):
        for name in sorted(os.listdir(os.path.join(training, label))):
            out.append((f"gesture_training/{label}/{name}", os.path.join(training, label, name)))
    photos = os.path.join(SHARED, "testdata", "images")
    for name in sorted(os.listdir(photos)):
        if name.startswith("hand") and name.endswith(".png"):
            out.append((f"images/{name}", os.path.join(photos, name)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bundle")
    p.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "training",
                                                 "mediapipe_trained_bundle.json"))
    a = p.parse_args()

    import mediapipe as mp
    from mediapipe.tasks.python import vision
    from mediapipe.tasks.python.core import base_options
    from ai_edge_litert.interpreter import Interpreter

    from mediapipe.tasks.python.components.processors import classifier_options

    data = open(a.bundle, "rb").read()

    def run(**extra):
        results = []
        options = vision.GestureRecognizerOptions(base_options=base_options.BaseOptions(model_asset_buffer=data),
                                                  **extra)
        with vision.GestureRecognizer.create_from_options(options) as recognizer:
            for key, path in images():
                r = recognizer.recognize(mp.Image.create_from_file(path))
                hands = []
                for i in range(len(r.hand_landmarks)):
                    hands.append(dict(
                        gestures=[[g.category_name, g.score] for g in r.gestures[i]],
                        handedness=[r.handedness[i][0].category_name, r.handedness[i][0].score],
                        landmarks=[[lm.x, lm.y, lm.z] for lm in r.hand_landmarks[i]]))
                results.append(dict(image=key, hands=hands))
        return results

    results = run()
    # The custom classifier's decisions: the canned classifier may only say None, so a hand the
    # custom classifier calls None stays None instead of falling back to a canned gesture.
    custom_only = run(canned_gesture_classifier_options=classifier_options.ClassifierOptions(
        category_allowlist=["None"]))
    hands = correct = 0
    for r in custom_only:
        if r["image"].startswith("gesture_training/"):
            label = r["image"].split("/")[1]
            for h in r["hands"]:
                hands += 1
                correct += bool(h["gestures"]) and h["gestures"][0][0].lower() == label.lower()

    inner = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(a.bundle).read("hand_gesture_recognizer.task")))
    classifier = inner.read("custom_gesture_classifier.tflite")
    interpreter = Interpreter(model_content=classifier)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    reference = json.load(open(os.path.join(ROOT, "Tests", "Fixtures", "training", "gesture_head_reference.json")))
    outputs = []
    for e in reference["embeddings"]:
        interpreter.set_tensor(inp["index"], np.array([e], dtype=np.float32))
        interpreter.invoke()
        y = interpreter.get_tensor(out["index"])[0]
        outputs.append([struct.unpack("<I", struct.pack("<f", float(v)))[0] for v in y])

    # The classifier read with the official generated readers (ai-edge-litert's TFLite schema,
    # MediaPipe's metadata schema), not with ours.
    from ai_edge_litert import schema_py_generated as tfl
    from mediapipe.tasks.metadata import metadata_schema_py_generated as mdfb
    model = tfl.ModelT.InitFromPackedBuf(classifier, 0)
    graph = model.subgraphs[0]
    entry = next(e for e in model.metadata if e.name == b"TFLITE_METADATA")
    metadata_bytes = bytes(model.buffers[entry.buffer].data)
    assert mdfb.ModelMetadata.ModelMetadataBufferHasIdentifier(metadata_bytes, 0)
    md = mdfb.ModelMetadataT.InitFromPackedBuf(metadata_bytes, 0)
    sg = md.subgraphMetadata[0]
    output = sg.outputTensorMetadata[0]
    official = dict(
        version=model.version,
        operators=[[model.operatorCodes[o.opcodeIndex].builtinCode, model.operatorCodes[o.opcodeIndex].version,
                    o.builtinOptionsType, [int(i) for i in o.inputs], [int(i) for i in o.outputs]]
                   for o in graph.operators],
        tensors=[[t.name.decode(), [int(d) for d in t.shape], t.type] for t in graph.tensors],
        inputs=[int(i) for i in graph.inputs], outputs=[int(i) for i in graph.outputs],
        metadata_buffers=[e.name.decode() for e in model.metadata],
        metadata=dict(name=md.name.decode(), description=md.description.decode(),
                      min_parser_version=md.minParserVersion.decode(),
                      input=sg.inputTensorMetadata[0].name.decode(), output=output.name.decode(),
                      score_threshold=[u.options.globalScoreThreshold for u in output.processUnits
                                       if u.optionsType == mdfb.ProcessUnitOptions.ScoreThresholdingOptions],
                      files=[[f.name.decode(), f.type] for f in output.associatedFiles]),
        labels=zipfile.ZipFile(io.BytesIO(classifier)).read("labels.txt").decode())

    fixture = dict(mediapipe=mp.__version__, bundle_sha256=hashlib.sha256(data).hexdigest(), results=results,
                   custom_only_results=custom_only, training_hands=hands, training_hands_correct=correct,
                   classifier_output_bits=outputs, classifier_official_reading=official)
    with open(a.out, "w") as f:
        json.dump(fixture, f, indent=None)
    found = sum(1 for r in results if r["hands"])
    print(f"wrote {os.path.relpath(a.out)}: {len(results)} images, {found} with a hand; MediaPipe classifies "
          f"{correct} of the {hands} training hands as labeled ({100 * correct / max(1, hands):.1f}%)")


if __name__ == "__main__":
    main()
