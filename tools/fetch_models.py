#!/usr/bin/env python3
"""Fills Models/ with every model TasksVision uses and assembles the .task bundles.

Standard library only, so it runs on a fresh machine. Each file is verified
against Models/MANIFEST.sha256; bundles are written with the official layout
(stored entries, 4-byte aligned data as in MediaPipe's create_model_asset_bundle)
and fixed timestamps, so their checksums are reproducible.

The official hand_landmarker.task, gesture_recognizer.task and pose_landmarker_full.task are copied from the
shared folder or downloaded; where neither works, the bundle is assembled from the wheel's and the shared
folder's models instead (the same weights: MediaPipe 1.2.3 gives bit-identical results with either). Their
manifest lines come in pairs, the official checksum first, the assembled one second; either is accepted.
"""
import argparse, hashlib, io, os, shutil, subprocess, sys, tempfile, urllib.request, zipfile

WHEEL = "mediapipe==0.10.14"
WHEEL_SHA256 = "a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4"
WHEEL_MODELS = {
    "palm_detection_full.tflite": "mediapipe/modules/palm_detection/palm_detection_full.tflite",
    "palm_detection_lite.tflite": "mediapipe/modules/palm_detection/palm_detection_lite.tflite",
    "hand_landmark_full.tflite": "mediapipe/modules/hand_landmark/hand_landmark_full.tflite",
    "hand_landmark_lite.tflite": "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite",
    "face_detection_short_range.tflite": "mediapipe/modules/face_detection/face_detection_short_range.tflite",
    "face_detection_full_range_sparse.tflite":
        "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite",
    "pose_detection.tflite": "mediapipe/modules/pose_detection/pose_detection.tflite",
    "pose_landmark_full.tflite": "mediapipe/modules/pose_landmark/pose_landmark_full.tflite",
    "selfie_segmentation.tflite": "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
    "selfie_segmentation_landscape.tflite":
        "mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite",
}
SHARED_MODELS = [
    "blaze_face_short_range.tflite", "canned_gesture_classifier.tflite",
    "custom_gesture_classifier_modelmaker_testdata.tflite", "face_detection_full_range.tflite",
    "gesture_embedder.tflite", "hand_detector.tflite", "pose_detector.tflite", "pose_landmark_lite.tflite",
    "pose_landmarks_detector.tflite", "pose_landmarks_detector_full.tflite",
    "hand_gesture_recognizer_with_custom_classifier.task", "selfie_segmenter.tflite",
    "face_landmarker.task", "face_landmarker_v2_with_blendshapes.task",
    "efficientdet_lite0.tflite", "efficientnet_lite0.tflite", "efficientnet_lite0_float32.tflite",
    "deeplab_v3.tflite", "holistic_landmarker_assembled.task",
]
# Official download locations, used only when neither the wheel nor shared/ has a file.
OFFICIAL = "https://storage.googleapis.com/mediapipe-models/"
OFFICIAL_URLS = {
    "blaze_face_short_range.tflite": OFFICIAL
        + "face_detector/blaze_face_short_range/float16/latest/blaze_face_short_range.tflite",
    "face_landmarker.task": OFFICIAL + "face_landmarker/face_landmarker/float16/1/face_landmarker.task",
    "selfie_segmenter.tflite": OFFICIAL + "image_segmenter/selfie_segmenter/float16/latest/selfie_segmenter.tflite",
    "efficientdet_lite0.tflite": OFFICIAL + "object_detector/efficientdet_lite0/int8/1/efficientdet_lite0.tflite",
    "efficientnet_lite0.tflite": OFFICIAL + "image_classifier/efficientnet_lite0/int8/1/efficientnet_lite0.tflite",
    # The official float32 classifier is also named efficientnet_lite0.tflite; it is installed under another name.
    "efficientnet_lite0_float32.tflite": OFFICIAL
        + "image_classifier/efficientnet_lite0/float32/1/efficientnet_lite0.tflite",
    "deeplab_v3.tflite": OFFICIAL + "image_segmenter/deeplab_v3/float32/1/deeplab_v3.tflite",
    "hand_landmarker.task": OFFICIAL + "hand_landmarker/hand_landmarker/float16/1/hand_landmarker.task",
    "gesture_recognizer.task": OFFICIAL + "gesture_recognizer/gesture_recognizer/float16/1/gesture_recognizer.task",
    "pose_landmarker_full.task": OFFICIAL
        + "pose_landmarker/pose_landmarker_full/float16/latest/pose_landmarker_full.task",
}
# Bundles installed as the official files (from shared/ or OFFICIAL_URLS), assembled from BUNDLES only when
# those cannot be had.
OFFICIAL_BUNDLES = ["hand_landmarker.task", "gesture_recognizer.task", "pose_landmarker_full.task"]
# Models whose weights the wheel has under another name (same tensors and graph; only 32 bytes of TFLite
# metadata differ, per ../shared/models/MODELS.md): when the first is unreachable, the tasks find the second
# (ModelLocator's same-weights step), with the same results.
SAME_WEIGHTS = {
    "blaze_face_short_range.tflite": "face_detection_short_range.tflite",
    "hand_detector.tflite": "palm_detection_full.tflite",
}
# What needs each model that may be unreachable, for setup's report.
NEEDED_BY = {
    "face_detection_short_range.tflite": "vision faces and FaceDetector when blaze_face_short_range.tflite is missing",
    "hand_landmark_full.tflite": "hand_landmarker.task (vision hands/gestures/palms)",
    "palm_detection_full.tflite": "vision palms --model, and hand_detector.tflite where that is missing",
    "blaze_face_short_range.tflite": "vision faces, FaceDetector (the default model)",
    "canned_gesture_classifier.tflite": "vision gestures, GestureRecognizer",
    "custom_gesture_classifier_modelmaker_testdata.tflite": "the tests",
    "face_detection_full_range.tflite": "the tests (full-range face detection)",
    "gesture_embedder.tflite": "vision gestures, GestureRecognizer, gesture training",
    "hand_detector.tflite": "vision hands/gestures/palms, HandLandmarker, GestureRecognizer, HandDetector",
    "pose_detector.tflite": "vision pose, PoseLandmarker, ML Kit PoseDetector",
    "pose_landmark_lite.tflite": "the tests",
    "pose_landmarks_detector.tflite": "vision pose, PoseLandmarker (lite), ML Kit PoseDetector",
    "pose_landmarks_detector_full.tflite": "vision pose --accurate, PoseLandmarker (full), AccuratePoseDetector",
    "hand_gesture_recognizer_with_custom_classifier.task": "the tests (custom gesture classifier)",
    "hand_landmarker.task": "vision hands/palms, HandLandmarker, HandDetector",
    "hand_gesture_recognizer.task": "vision gestures, GestureRecognizer",
    "gesture_recognizer.task": "vision gestures, GestureRecognizer",
    "gesture_recognizer_with_custom_classifier.task": "the tests (custom gesture classifier)",
    "pose_landmarker_lite.task": "vision pose, PoseLandmarker (lite), ML Kit PoseDetector",
    "pose_landmarker_full.task": "vision pose --accurate, PoseLandmarker (full), AccuratePoseDetector",
    "efficientdet_lite0.tflite": "vision objects, ObjectDetector (the default model)",
    "efficientnet_lite0.tflite": "vision classify, ImageClassifier (the default model)",
    "efficientnet_lite0_float32.tflite": "vision embed, ImageEmbedder, the float classifier",
    "deeplab_v3.tflite": "vision segment --model deeplab_v3.tflite (multi-class segmentation)",
    "holistic_landmarker_assembled.task":
        "vision holistic, HolisticLandmarker (where holistic_landmarker.task is missing)",
}
# README's first command (`vision faces`) needs one of these.
FIRST_COMMAND = ["blaze_face_short_range.tflite", "face_detection_short_range.tflite"]
# name -> list of (member name, source file in Models/ or nested bundle). A nested bundle is itself assembled
# (never the official file), so an assembled bundle's bytes do not depend on which variant is installed.
BUNDLES = [
    ("hand_landmarker.task", [("hand_detector.tflite", "hand_detector.tflite"),
                              ("hand_landmarks_detector.tflite", "hand_landmark_full.tflite")]),
    ("hand_gesture_recognizer.task", [("gesture_embedder.tflite", "gesture_embedder.tflite"),
                                      ("canned_gesture_classifier.tflite", "canned_gesture_classifier.tflite")]),
    ("gesture_recognizer.task", [("hand_landmarker.task", "hand_landmarker.task"),
                                 ("hand_gesture_recognizer.task", "hand_gesture_recognizer.task")]),
    # The official test bundle holds embedder, canned and custom (Rock/Paper/Scissors) classifiers.
    ("gesture_recognizer_with_custom_classifier.task", [("hand_landmarker.task", "hand_landmarker.task"),
                                                        ("hand_gesture_recognizer.task",
                                                         "hand_gesture_recognizer_with_custom_classifier.task")]),
    ("pose_landmarker_lite.task", [("pose_detector.tflite", "pose_detector.tflite"),
                                   ("pose_landmarks_detector.tflite", "pose_landmarks_detector.tflite")]),
    ("pose_landmarker_full.task", [("pose_detector.tflite", "pose_detector.tflite"),
                                   ("pose_landmarks_detector.tflite", "pose_landmarks_detector_full.tflite")]),
]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_manifest(models):
    """name -> the checksums accepted for it, in manifest order (an official bundle: official, then assembled)."""
    manifest = {}
    with open(os.path.join(models, "MANIFEST.sha256")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                digest, name = line.split(None, 1)
                manifest.setdefault(name.strip(), []).append(digest)
    return manifest


class AlignedZip(zipfile.ZipFile):
    """Stored entries whose data start 4-byte aligned, padded as MediaPipe's AlignZipFile does
    (always 1 to 4 zero bytes before each local header)."""

    def _writecheck(self, zinfo):
        offset = self.fp.tell()
        padding = 4 - (offset + len(zinfo.FileHeader())) % 4
        if padding:
            self.fp.write(b"\x00" * padding)
            zinfo.header_offset = offset + padding
        super()._writecheck(zinfo)


def bundle_bytes(members):
    buf = io.BytesIO()
    with AlignedZip(buf, mode="w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, data)
    return buf.getvalue()


def assembled(models, name, recipes):
    """The bytes of `name` as assembled from its recipe (members assembled too when they have one), or the
    file in `models` when it has none."""
    if name not in recipes:
        with open(os.path.join(models, name), "rb") as f:
            return f.read()
    return bundle_bytes([(member, assembled(models, source, recipes)) for member, source in recipes[name]])


def recipe_sources(name, recipes):
    """The files in Models/ that assembling `name` reads."""
    return [leaf for _, source in recipes[name]
            for leaf in (recipe_sources(source, recipes) if source in recipes else [source])]


def fetch_wheel_models(models, names):
    """Unpacks `names` from the mediapipe wheel (pip download from PyPI, checked against WHEEL_SHA256)."""
    with tempfile.TemporaryDirectory() as tmp:
        print(f"setup: downloading the {WHEEL} wheel for {len(names)} models")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.11", "--platform", "manylinux2014_x86_64", "-d", tmp, WHEEL],
                       check=True)
        wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
        if not wheels:
            raise ValueError("pip downloaded no wheel")
        wheel = os.path.join(tmp, wheels[0])
        if sha256(wheel) != WHEEL_SHA256:
            raise ValueError(f"{wheels[0]} has an unexpected sha256")
        with zipfile.ZipFile(wheel) as z:
            for name in names:
                with open(os.path.join(models, name), "wb") as f:
                    f.write(z.read(WHEEL_MODELS[name]))


def download(url, dst):
    """Downloads `url` to `dst` (through a temporary file, so a failed download leaves nothing)."""
    part = dst + ".part"
    try:
        with urllib.request.urlopen(url, timeout=30) as response, open(part, "wb") as f:
            shutil.copyfileobj(response, f)
        os.replace(part, dst)
    finally:
        if os.path.exists(part):
            os.remove(part)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", required=True)
    ap.add_argument("--shared", required=True)
    args = ap.parse_args()
    models, shared_models = args.models, os.path.join(args.shared, "models")
    manifest = read_manifest(models)

    def ok(name):
        p = os.path.join(models, name)
        return os.path.exists(p) and sha256(p) in manifest.get(name, [])

    unreachable = {}  # model -> why
    missing_wheel = [n for n in WHEEL_MODELS if not ok(n)]
    if missing_wheel:
        try:
            fetch_wheel_models(models, missing_wheel)
        except (OSError, subprocess.CalledProcessError, ValueError, zipfile.BadZipFile) as e:
            for n in missing_wheel:
                unreachable[n] = f"the {WHEEL} wheel could not be fetched ({e})"

    def official(name, verify=False):
        """Copies `name` from shared/ (with `verify`, only a copy of the first checksum) or downloads it; returns
        why not, or None."""
        src = os.path.join(shared_models, name)
        dst = os.path.join(models, name)
        if os.path.exists(src) and (not verify or sha256(src) == manifest[name][0]):
            shutil.copyfile(src, dst)
            return None
        if name in OFFICIAL_URLS:
            print(f"setup: downloading {name}")
            try:
                download(OFFICIAL_URLS[name], dst)
                return None
            except OSError as e:  # URLError, HTTPError and timeouts are OSErrors
                return f"{OFFICIAL_URLS[name]} is unreachable ({getattr(e, 'reason', e)})"
        return f"not in {shared_models}, and setup knows no download for it"

    for name in SHARED_MODELS:
        if not ok(name):
            why = official(name)
            if why:
                unreachable[name] = why

    recipes = dict(BUNDLES)
    for bundle, members in BUNDLES:
        path = os.path.join(models, bundle)
        if ok(bundle) and (bundle not in OFFICIAL_BUNDLES or sha256(path) == manifest[bundle][0]):
            continue
        if bundle in OFFICIAL_BUNDLES:
            # The official file replaces an assembled one when it can be had.
            fallback = path + ".assembled" if ok(bundle) else None
            if fallback:
                os.replace(path, fallback)
            why = official(bundle, verify=True)
            if why is None and ok(bundle):
                if fallback:
                    os.remove(fallback)
                continue
            if fallback:
                os.replace(fallback, path)
                continue
            why = why or "the download has another sha256"
            print(f"setup: {bundle}: the official file could not be had ({why}); assembling it")
        sources = set(recipe_sources(bundle, recipes))
        absent = sorted(s for s in sources if not os.path.exists(os.path.join(models, s)))
        if absent:
            unreachable[bundle] = "made from " + ", ".join(absent) + ", which setup could not install"
            continue
        with open(os.path.join(models, bundle), "wb") as f:
            f.write(assembled(models, bundle, recipes))

    # One line per model that could not be installed: what needs it, and what stands in for it, if anything.
    for name, why in unreachable.items():
        needed = NEEDED_BY.get(name, "the tests")
        alias = SAME_WEIGHTS.get(name)
        instead = f"; {alias} (same weights) is used in its place" if alias and ok(alias) else ""
        print(f"setup: not installed: {name}, needed by {needed}: {why}{instead}")

    bad = [n for n in manifest if n not in unreachable and not ok(n)]
    if bad:
        for n in bad:
            p = os.path.join(models, n)
            expected = " or ".join(manifest[n])
            print(f"setup: {n}: sha256 {sha256(p) if os.path.exists(p) else 'missing'}, expected {expected}")
        sys.exit(1)
    installed = len(manifest) - len(unreachable)
    print(f"setup: {installed} of {len(manifest)} model files in {models} match MANIFEST.sha256")
    if not any(ok(n) for n in FIRST_COMMAND):
        sys.exit("setup: README's first command (vision faces) cannot run: no face detector model installed")


if __name__ == "__main__":
    main()
