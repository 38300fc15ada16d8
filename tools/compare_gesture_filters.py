#!/usr/bin/env python3
"""Runs the official MediaPipe GestureRecognizer (1.2.3, image mode) with canned and custom
classifier filters (deny list, allow list, both, unknown names, score thresholds) on our photos
and writes Tests/Fixtures/hands/gesture_filters.json, which GestureFilterParityTests compares with ours.

    pip install mediapipe==1.2.3 pillow numpy
    python3 tools/compare_gesture_filters.py

What it pins: a hand whose gesture does not pass the filters has no entry in `gestures`, and an
image where no hand's gesture passes gives an empty result (no hands, landmarks or handedness);
an allow list together with a deny list is accepted and the allow list wins. The results are
written as MediaPipe returns them (gestures are not attributed to hands), with the wrist of each
hand to match hands by.
"""
import json, os
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
from mediapipe.tasks.python.components.processors import ClassifierOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "hands", "gesture_filters.json")
R = lambda v: round(float(v), 6)

CANNED = ["None", "Closed_Fist", "Open_Palm", "Pointing_Up", "Thumb_Down", "Thumb_Up", "Victory", "ILoveYou"]
FIST = "Closed_Fist"

# name, bundle, numHands, canned options, custom options (each: allow, deny, scoreThreshold).
CASES = [
    # MPPGestureRecognizerTests testRecognizeWithDenyGestureFistSucceeds.
    ("deny_fist", "gesture_recognizer.task", 1, {"deny": [FIST], "threshold": 0.5}, None),
    # testRecognizeWithAllowGestureFistSucceeds.
    ("allow_fist", "gesture_recognizer.task", 1, {"allow": [FIST], "threshold": 0.5}, None),
    # testRecognizeWithPreferAllowlistOverDenylistSucceeds.
    ("allow_and_deny_fist", "gesture_recognizer.task", 1, {"allow": [FIST], "deny": [FIST], "threshold": 0.5}, None),
    # Java's recognize_successWithAllowAllGestureExceptFist.
    ("allow_all_but_fist", "gesture_recognizer.task", 1,
     {"allow": [c for c in CANNED if c != FIST], "threshold": 0.5}, None),
    # Two hands, a filter one of them may pass and the other not.
    ("two_hands_allow_open_palm", "gesture_recognizer.task", 2, {"allow": ["Open_Palm"], "threshold": 0.5}, None),
    ("two_hands_deny_none", "gesture_recognizer.task", 2, {"deny": ["None"], "threshold": 0.5}, None),
    # Allow list wins over a deny list naming the same and other gestures.
    ("two_hands_allow_deny_overlap", "gesture_recognizer.task", 2,
     {"allow": ["Open_Palm", "None"], "deny": ["Open_Palm", "Thumb_Up"]}, None),
    # Names the model does not have are ignored; a list of only such names filters nothing.
    ("allow_unknown_only", "gesture_recognizer.task", 2, {"allow": ["Rock", "thumb_up"]}, None),
    ("deny_unknown_and_fist", "gesture_recognizer.task", 2, {"deny": ["Rock", FIST], "threshold": 0.5}, None),
    # A threshold no score reaches.
    ("threshold_above_all", "gesture_recognizer.task", 2, {"threshold": 0.999}, None),
    # Custom classifier (Rock, Paper, Scissors and None): filtered out, the canned one decides;
    # both filtered out, nothing.
    ("custom_denied_canned_decides", "gesture_recognizer_with_custom_classifier.task", 2,
     None, {"deny": ["None", "Rock", "Paper", "Scissors"]}),
    ("custom_and_canned_filtered", "gesture_recognizer_with_custom_classifier.task", 2,
     {"threshold": 1.01}, {"allow": ["Rock"], "deny": ["Rock"], "threshold": 0.9}),
]


def classifier(o):
    if o is None:
        return None
    kw = {}
    if o.get("allow"):
        kw["category_allowlist"] = o["allow"]
    if o.get("deny"):
        kw["category_denylist"] = o["deny"]
    if "threshold" in o:
        kw["score_threshold"] = o["threshold"]
    return ClassifierOptions(**kw)


def cat(c):
    return {"index": c.index, "score": R(c.score), "categoryName": c.category_name}


def load(path):
    return mp.Image(image_format=mp.ImageFormat.SRGB,
                    data=np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))))


def main():
    names = sorted(f for f in os.listdir(IMAGES)
                   if f.endswith(".png") and (f.startswith("hand") or f == "negative_animals_1.png"))
    images = {n: load(os.path.join(IMAGES, n)) for n in names}
    cases = []
    for name, bundle, num_hands, canned, custom in CASES:
        kw = dict(base_options=BaseOptions(model_asset_path=os.path.join(ROOT, "Models", bundle)),
                  num_hands=num_hands, running_mode=vision.RunningMode.IMAGE)
        if canned is not None:
            kw["canned_gesture_classifier_options"] = classifier(canned)
        if custom is not None:
            kw["custom_gesture_classifier_options"] = classifier(custom)
        results = []
        with vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(**kw)) as task:
            for n in names:
                r = task.recognize(images[n])
                results.append({
                    "file": n,
                    "wrists": [[R(h[0].x), R(h[0].y)] for h in r.hand_landmarks],
                    "worldLandmarkCounts": [len(w) for w in r.hand_world_landmarks],
                    "handedness": [h[0].category_name for h in r.handedness],
                    "gestures": [[cat(c) for c in g] for g in r.gestures],
                })
        cases.append({"name": name, "model": bundle, "numHands": num_hands,
                      "canned": canned, "custom": custom, "results": results})
        empty = sum(1 for e in results if not e["wrists"])
        partial = sum(1 for e in results if e["wrists"] and len(e["gestures"]) < len(e["wrists"]))
        print(f"{name}: {len(results)} images, {empty} empty results, {partial} with fewer gestures than hands")
    with open(OUT, "w") as f:
        json.dump({"mediapipe": mp.__version__, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
