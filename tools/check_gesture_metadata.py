#!/usr/bin/env python3
"""Reads a trained gesture bundle's custom classifier metadata with TFLite Support's
MetadataDisplayer (C++ flatbuffer verifier, parser-version check) and writes what it shows to
Tests/Fixtures/training/tflite_support_metadata.json (GestureBundleParityTests compares it with
our reader's view of the same bundle, identified by its SHA-256).

tflite-support 0.4.4 does not install beside mediapipe 1.2.3; give it a venv of its own:

  python3 -m venv /tmp/tfs && /tmp/tfs/bin/pip install tflite-support==0.4.4
  vision gestures train ../shared/testdata/gesture_training --epochs 100 --out /tmp/g.task
  /tmp/tfs/bin/python tools/check_gesture_metadata.py /tmp/g.task
"""
import argparse
import hashlib
import io
import json
import os
import zipfile

from tflite_support import metadata

HERE = os.path.dirname(os.path.abspath(__file__))

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("bundle")
p.add_argument("--out", default=os.path.join(HERE, "..", "Tests", "Fixtures", "training",
                                             "tflite_support_metadata.json"))
a = p.parse_args()
data = open(a.bundle, "rb").read()
inner = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(io.BytesIO(data)).read("hand_gesture_recognizer.task")))
model = inner.read("custom_gesture_classifier.tflite")
shown = metadata.MetadataDisplayer.with_model_buffer(model)
result = dict(bundle_sha256=hashlib.sha256(data).hexdigest(), metadata=json.loads(shown.get_metadata_json()),
              associated_files=shown.get_packed_associated_file_list(),
              labels=shown.get_associated_file_buffer("labels.txt").decode())
with open(a.out, "w") as f:
    json.dump(result, f, indent=1)
print(f"wrote {os.path.relpath(a.out)}: {result['metadata']['name']}, files {result['associated_files']}")
