#!/usr/bin/env python3
"""MediaPipe 1.2.3's FaceLandmarker (official face_landmarker.task, image mode, output_face_blendshapes and
output_facial_transformation_matrixes) on a few face photos: per face, the 478 landmarks, the 52 blendshape scores
and the 4x4 transformation matrix, for the tests of the blendshapes stage and the face geometry pipeline, which take
MediaPipe's landmarks in and compare their outputs with MediaPipe's.

    python3 tools/reference_face_parts.py      # writes Tests/Fixtures/face_parts/mediapipe.json

Every float is written as the shortest decimal that reads back as the same float32 (landmarks and scores are
float32 in MediaPipe; the Python API widens them to double exactly), so the Swift side gets MediaPipe's landmarks
bit for bit. The matrix is written row-major (the Python API gives the matrix itself, not the iOS transpose).

Beside MediaPipe's scores, `tfliteBlendshapes`: ai-edge-litert's face_blendshapes.tflite (XNNPACK, one thread) on
MediaPipe's landmarks turned into the model input as face_blendshapes_graph.cc does (the 146-landmark subset, x times
the image width, y times its height). MediaPipe's own scores differ from those by up to 2.3e-6 on six of the eight
faces: the XNNPACK inside MediaPipe sums the model's MEAN of [1, 146, 1] over axis 1 as one contiguous run, the one in
ai-edge-litert row by row (Interpreter.Options.reducesOverUnitAxesContiguously in the engine).
"""
import json, os
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))
IMAGES = os.path.join(SHARED, "testdata", "images")
MODEL = os.path.join(SHARED, "models", "face_landmarker.task")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "face_parts", "mediapipe.json")
# face_blendshapes_graph.cc's kLandmarksSubsetIdxs.
SUBSET = [
    0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66, 67, 70, 78, 80,
    81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136, 144, 145, 146, 148, 149, 150, 152, 153,
    154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172, 173, 176, 178, 181, 185, 191, 195, 197, 234, 246, 249, 251,
    263, 267, 269, 270, 276, 282, 283, 284, 285, 288, 291, 293, 295, 296, 297, 300, 308, 310, 311, 312, 314, 317, 318,
    321, 323, 324, 332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381, 382, 384, 385, 386,
    387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454, 466, 468, 469, 470, 471, 472, 473, 474, 475, 476, 477]
PHOTOS = ["face_frontal_1.png", "face_frontal_2.png", "face_tilted_1.png", "faces_two_1.png", "faces_group_3.png"]


def f32(values):
    """Shortest decimals that read back as the same float32."""
    return [float(str(np.float32(v))) for v in values]


def main():
    options = vision.FaceLandmarkerOptions(base_options=BaseOptions(model_asset_path=MODEL), num_faces=5,
                                           output_face_blendshapes=True, output_facial_transformation_matrixes=True)
    landmarker = vision.FaceLandmarker.create_from_options(options)
    import zipfile
    blendshapes = Interpreter(model_content=zipfile.ZipFile(MODEL).read("face_blendshapes.tflite"), num_threads=1)
    blendshapes.allocate_tensors()
    entries = []
    for name in PHOTOS:
        pixels = np.ascontiguousarray(np.asarray(Image.open(os.path.join(IMAGES, name)).convert("RGB")))
        result = landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels))
        faces = []
        for landmarks, scores, matrix in zip(result.face_landmarks, result.face_blendshapes,
                                                  result.facial_transformation_matrixes):
            assert [c.index for c in scores] == list(range(52))
            points = np.array([[p.x, p.y] for p in landmarks], dtype=np.float32)[SUBSET]
            model_input = points * np.array([pixels.shape[1], pixels.shape[0]], dtype=np.float32)
            blendshapes.set_tensor(blendshapes.get_input_details()[0]["index"], model_input.reshape(1, 146, 2))
            blendshapes.invoke()
            tflite = blendshapes.get_tensor(blendshapes.get_output_details()[0]["index"]).reshape(-1)
            faces.append({
                "landmarks": [f32([p.x, p.y, p.z]) for p in landmarks],
                "blendshapes": f32([c.score for c in scores]),
                "tfliteBlendshapes": f32(tflite),
                "categoryNames": [c.category_name for c in scores],
                "matrix": f32(np.asarray(matrix, dtype=np.float32).reshape(-1)),
            })
        entries.append({"image": name, "width": int(pixels.shape[1]), "height": int(pixels.shape[0]),
                        "faces": faces})
        print(f"{name}: {len(faces)} faces")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"generator": "tools/reference_face_parts.py", "mediapipe": mp.__version__,
                   "model": "face_landmarker.task", "images": entries}, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
