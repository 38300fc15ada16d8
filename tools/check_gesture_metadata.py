#!/usr/bin/env python3
"""Reads a trained gesture bundle's custom classifier metadata with TFLite Support's
MetadataDisplayer (C++ flatbuffer verifier, parser-version check) and prints it.

  python3 -m venv /tmp/tfs && /tmp/tfs/bin/pip install tflite-support==0.4.4
  /tmp/tfs/bin/python tools/check_gesture_metadata.py g.task
"""
import io
import sys
import zipfile

from tflite_support import metadata

bundle = zipfile.ZipFile(sys.argv[1])
inner = zipfile.ZipFile(io.BytesIO(bundle.read("hand_gesture_recognizer.task")))
model = inner.read("custom_gesture_classifier.tflite")
shown = metadata.MetadataDisplayer.with_model_buffer(model)
print(shown.get_metadata_json())
print("associated files:", shown.get_packed_associated_file_list())
print("labels.txt:", shown.get_associated_file_buffer("labels.txt").decode().split("\n"))
