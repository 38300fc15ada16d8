#!/usr/bin/env python3
"""Runs the official MediaPipe FaceLandmarker (Tasks API, blendshapes and transformation matrices on)
and writes the fixtures the Swift tests compare against: Tests/Fixtures/face_landmarks/*.json.

    /work/venv/bin/python tools/reference_face_landmarks.py [--mediapipe-source DIR]

- image mode, numFaces 3, on every face photo of ../shared/testdata/images (MANIFEST.tsv category
  face_*), upright and with rotation_degrees 90, 180 and 270;
- video mode (33 ms apart), numFaces 1, on the sequence pose_dance_1;
- video mode, numFaces 1, on three sequences made here by moving a virtual camera over
  face_frontal_1.png (pan, roll, zoom), and numFaces 2 on one drifting over faces_two_1.png (two). Each frame is a nearest-neighbour resampling whose affine
  map (output pixel centre -> source pixel) is written into the fixture, so the Swift test makes
  the same frames bit for bit (FaceLandmarkerParityTests.syntheticFrame);
- tongue_out (which MediaPipe's graph drops) computed independently: the landmarks model run by
  ai-edge-litert on an OpenCV crop of the rect MediaPipe's graph derives from its own landmarks;
- Google's expected portrait values (mediapipe/tasks/testdata/vision/portrait_expected_*.pbtxt)
  copied from a MediaPipe source checkout when one is given (for the MPPFaceLandmarkerTests port).

Coordinates are MediaPipe's: normalized to the unrotated input image. Matrices are 16 numbers
row-major, as Python's FaceLandmarkerResult gives them (numpy 4x4).
"""
import argparse, json, math, os, re, subprocess
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
SEQUENCES = os.path.join(SHARED, "testdata", "sequences")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "face_landmarks")
MODEL = os.path.join(ROOT, "Models", "face_landmarker.task")
R = lambda v: round(float(v), 6)
SYNTH_SOURCE = "face_frontal_1.png"
TWO_SOURCE = "faces_two_1.png"
SYNTH_SIZE = (320, 240)
SYNTH_FRAMES = 20


def faces_json(r):
    out = []
    for i, lms in enumerate(r.face_landmarks):
        f = {"landmarks": [R(v) for l in lms for v in (l.x, l.y, l.z)]}
        if r.face_blendshapes:
            f["blendshapes"] = [R(c.score) for c in r.face_blendshapes[i]]
            assert [c.index for c in r.face_blendshapes[i]] == list(range(52))
        if r.facial_transformation_matrixes:
            f["matrix"] = [R(v) for v in np.asarray(r.facial_transformation_matrixes[i]).reshape(16)]
        out.append(f)
    return out


def make(mode, num_faces):
    return vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=MODEL), running_mode=mode, num_faces=num_faces,
        output_face_blendshapes=True, output_facial_transformation_matrixes=True))


def mp_image(rgb):
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))


def load(path):
    return np.asarray(Image.open(path).convert("RGB"))


def synthetic_frame(src, m):
    """Nearest-neighbour resampling: output pixel (x, y) takes source pixel
    (floor(a*x + b*y + tx), floor(c*x + d*y + ty)), clamped to the image."""
    w, h = SYNTH_SIZE
    a, b, tx, c, d, ty = m
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    sx = np.floor(a * x + b * y + tx).astype(np.int64).clip(0, src.shape[1] - 1)
    sy = np.floor(c * x + d * y + ty).astype(np.int64).clip(0, src.shape[0] - 1)
    return np.ascontiguousarray(src[sy, sx])


def camera(cx, cy, scale, angle):
    """The affine map of a camera centred on (cx, cy), `scale` source pixels per output pixel,
    turned by `angle` radians; output pixel centres are (x + 0.5, y + 0.5)."""
    w, h = SYNTH_SIZE
    cs, sn = scale * math.cos(angle), scale * math.sin(angle)
    ox, oy = 0.5 - w / 2, 0.5 - h / 2
    return [cs, -sn, cx + cs * ox - sn * oy, sn, cs, cy + sn * ox + cs * oy]


def synthetic_paths(src):
    r = make(vision.RunningMode.IMAGE, 1).detect(mp_image(src))
    lms = r.face_landmarks[0]
    H, W = src.shape[:2]
    xs = [l.x * W for l in lms]; ys = [l.y * H for l in lms]
    fx, fy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    size = max(max(xs) - min(xs), max(ys) - min(ys))
    base = size * 2.2 / SYNTH_SIZE[1]
    n = SYNTH_FRAMES
    return {
        "pan": [camera(fx + size * (-0.6 + 1.2 * i / (n - 1)), fy + size * 0.1 * math.sin(i / 3), base, 0)
                for i in range(n)],
        "roll": [camera(fx, fy, base, math.radians(6 * i)) for i in range(n)],
        "zoom": [camera(fx, fy, base * (1.6 - 1.0 * i / (n - 1)), math.radians(-5)) for i in range(n)],
    }


def rect_from_landmarks(lms, W, H):
    """face_landmarks_detector_graph.cc's next-frame rect: landmarks -> detection box, rotation from
    landmark 33 to 263 (target 0), scaled by 1.5 and squared on the long side (pixels)."""
    xs = np.array([l.x for l in lms], np.float32); ys = np.array([l.y for l in lms], np.float32)
    xmin, xmax, ymin, ymax = xs.min(), xs.max(), ys.min(), ys.max()
    cx, cy, w, h = (xmin + xmax) / 2, (ymin + ymax) / 2, xmax - xmin, ymax - ymin
    x0, y0, x1, y1 = lms[33].x * W, lms[33].y * H, lms[263].x * W, lms[263].y * H
    angle = -math.atan2(-(y1 - y0), x1 - x0)
    angle = angle - 2 * math.pi * math.floor((angle + math.pi) / (2 * math.pi))
    long = max(w * W, h * H)
    return cx, cy, long / W * 1.5, long / H * 1.5, angle


def tongue_reference(src, lms):
    """The landmarks model (ai-edge-litert) on the OpenCV crop of the rect from `lms`:
    presence (sigmoid) and tongue_out, the outputs MediaPipe's graph reads and drops."""
    import cv2, zipfile, io
    from ai_edge_litert.interpreter import Interpreter
    H, W = src.shape[:2]
    cx, cy, w, h, angle = rect_from_landmarks(lms, W, H)
    box = cv2.boxPoints(((cx * W, cy * H), (w * W, h * H), math.degrees(angle)))
    dst = np.array([[0, 256], [0, 0], [256, 0], [256, 256]], np.float32)
    m = cv2.getPerspectiveTransform(box.astype(np.float32), dst)
    crop = cv2.warpPerspective(src, m, (256, 256), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    data = open(MODEL, "rb").read()
    model = zipfile.ZipFile(io.BytesIO(data[data.index(b"PK"):])).read("face_landmarks_detector.tflite")
    it = Interpreter(model_content=model)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], (crop.astype(np.float32) / 255)[None])
    it.invoke()
    outs = {tuple(o["shape"]): it.get_tensor(o["index"]).reshape(-1) for o in it.get_output_details()}
    presence = 1 / (1 + math.exp(-float(outs[(1, 1, 1, 1)][0])))
    return {"rect": [R(cx), R(cy), R(w), R(h), R(angle)], "presence": R(presence),
            "tongueOut": R(outs[(1, 1)][0])}


def google_expected(source):
    def read(name):
        p = os.path.join(source, "mediapipe/tasks/testdata/vision", name)
        if os.path.isdir(os.path.join(source, "objects")) or source.endswith(".git") or os.path.isfile(
                os.path.join(source, "HEAD")):
            return subprocess.run(["git", "--git-dir", source, "show", "HEAD:mediapipe/tasks/testdata/vision/" + name],
                                  check=True, capture_output=True, text=True).stdout
        return open(p).read()
    lms = read("portrait_expected_face_landmarks.pbtxt")
    xs = [float(v) for v in re.findall(r"\bx: ([-0-9.e]+)", lms)]
    ys = [float(v) for v in re.findall(r"\by: ([-0-9.e]+)", lms)]
    bs = read("portrait_expected_blendshapes.pbtxt")
    blend = [{"index": int(i), "score": float(s), "categoryName": n}
             for i, s, n in re.findall(r'index: (\d+)\s+score: ([-0-9.e]+)\s+label: "([^"]*)"', bs)]
    geo = read("portrait_expected_face_geometry.pbtxt")
    tail = geo[geo.index("pose_transform_matrix"):]
    packed = [float(v) for v in re.findall(r"packed_data: ([-0-9.e]+)", tail)]
    return {"source": "mediapipe/tasks/testdata/vision/portrait_expected_{face_landmarks,blendshapes,"
                      "face_geometry}.pbtxt",
            "landmarks": [[x, y] for x, y in zip(xs, ys)], "blendshapes": blend,
            "poseTransformMatrixPackedColumnMajor": packed}


def dump(name, obj):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print(name, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mediapipe-source", default="/work/.mirror/google-ai-edge+mediapipe/repo",
                    help="a MediaPipe checkout or git dir, for Google's expected portrait values")
    ap.add_argument("--only", default="", help="comma-separated parts: google,tongue,images,video,synthetic")
    args = ap.parse_args()
    parts = set(args.only.split(",")) if args.only else {"google", "tongue", "images", "video", "synthetic"}
    os.makedirs(OUT, exist_ok=True)
    if "google" in parts and os.path.exists(args.mediapipe_source):
        dump("google_portrait_expected.json", google_expected(args.mediapipe_source))
    task = make(vision.RunningMode.IMAGE, 3)
    names = []
    with open(os.path.join(IMAGES, "MANIFEST.tsv")) as f:
        for line in f.read().splitlines()[1:]:
            cols = line.split("\t")
            if len(cols) > 3 and cols[3].startswith("face"):
                names.append(cols[0])
    first = None
    if "images" in parts:
        entries = []
        for name in names:
            rgb = load(os.path.join(IMAGES, name))
            for rot in [0, 90, 180, 270]:
                r = task.detect(mp_image(rgb), vision.ImageProcessingOptions(rotation_degrees=rot))
                entries.append({"file": name, "width": rgb.shape[1], "height": rgb.shape[0], "rotation": rot,
                                "faces": faces_json(r)})
        names52 = [c.category_name for c in task.detect(mp_image(load(os.path.join(IMAGES, SYNTH_SOURCE))))
                   .face_blendshapes[0]]
        dump("image_faces.json", {"model": "face_landmarker.task", "mode": "image", "numFaces": 3,
                                  "blendshapeNames": names52, "results": entries})
    if "tongue" in parts:
        checks = []
        for name in ["face_frontal_1.png", "face_frontal_2.png", "face_tilted_1.png", "faces_two_1.png"]:
            rgb = load(os.path.join(IMAGES, name))
            r = task.detect(mp_image(rgb))
            if r.face_landmarks:
                checks.append(dict(file=name, **tongue_reference(rgb, r.face_landmarks[0])))
        dump("tongue_out.json", {"model": "face_landmarker.task", "note": "rect: xCenter, yCenter, width, "
                                 "height, rotation (normalized) of the crop; presence and tongueOut from "
                                 "ai-edge-litert on OpenCV's crop", "results": checks})
    if "video" in parts:
        for seq in ["pose_dance_1"]:
            vt = make(vision.RunningMode.VIDEO, 1)
            frames = sorted(f for f in os.listdir(os.path.join(SEQUENCES, seq)) if f.endswith(".png"))
            entries = []
            for i, frame in enumerate(frames):
                rgb = load(os.path.join(SEQUENCES, seq, frame))
                entries.append({"file": frame, "width": rgb.shape[1], "height": rgb.shape[0], "timestampMs": i * 33,
                                "faces": faces_json(vt.detect_for_video(mp_image(rgb), i * 33))})
            dump(f"video_{seq}.json", {"model": "face_landmarker.task", "mode": "video", "numFaces": 1,
                                       "sequence": seq, "results": entries})
    if "synthetic" in parts:
        src = load(os.path.join(IMAGES, SYNTH_SOURCE))
        runs = [(key, SYNTH_SOURCE, 1, path) for key, path in synthetic_paths(src).items()]
        # Two faces (numFaces 2: tracking and association of two, no smoothing), the camera drifting.
        runs.append(("two", TWO_SOURCE, 2, [camera(600 + 4 * i, 400 + 2 * i, 4.0, math.radians(0.5 * i))
                                           for i in range(SYNTH_FRAMES)]))
        for key, source, num_faces, path in runs:
            src = load(os.path.join(IMAGES, source))
            vt = make(vision.RunningMode.VIDEO, num_faces)
            entries = []
            for i, m in enumerate(path):
                frame = synthetic_frame(src, m)
                entries.append({"affine": m, "timestampMs": i * 33,
                                "faces": faces_json(vt.detect_for_video(mp_image(frame), i * 33))})
            dump(f"video_synthetic_{key}.json", {"model": "face_landmarker.task", "mode": "video",
                                                 "numFaces": num_faces, "source": source, "width": SYNTH_SIZE[0],
                                                 "height": SYNTH_SIZE[1], "results": entries})


if __name__ == "__main__":
    main()
