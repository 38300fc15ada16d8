#!/usr/bin/env python3
"""Checks which kernels the references run on the int8 models: MediaPipe 1.2.3's own TFLite and XNNPACK (inside
libmediapipe.so) against ai-edge-litert 2.3.0's default interpreter (XNNPACK delegate) and its built-in kernels
(`experimental_op_resolver_type=BUILTIN_WITHOUT_DEFAULT_DELEGATES`), value by value.

    python3 tools/check_int8_references.py [--images 6]

- efficientnet_lite0.tflite through MediaPipe's ImageClassifier (every category, no threshold) on images of the
  model's input size, so that its preprocessing hands the pixels over unchanged;
- efficientdet_lite0.tflite through the same ImageClassifier: its two float outputs reshaped to [1, N] classification
  heads (1,728,540 scores and 76,824 box values), so MediaPipe's interpreter computes every op of the detector.

Prints, per image and output, how many values MediaPipe gives otherwise than litert's default interpreter and than
its built-in kernels (docs/engine.md, "Quantized models"). Needs mediapipe, ai-edge-litert, numpy, pillow and
../shared/models; nothing is written to the repository.
"""
import argparse, os, sys, tempfile
import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tflite_builder import S  # noqa: E402
import flatbuffers  # noqa: E402
import mediapipe as mp  # noqa: E402
from mediapipe.tasks import python as mpt  # noqa: E402
from mediapipe.tasks.python import vision  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("TASKSVISION_SHARED", os.path.join(ROOT, "..", "shared"))


def as_classifier(src, dst):
    """`src` with every output reshaped to [1, N] (a classification head each), metadata dropped."""
    m = S.ModelT.InitFromPackedBuf(open(src, "rb").read(), 0)
    m.metadata = None
    sg = m.subgraphs[0]
    code = S.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = S.BuiltinOperator.RESHAPE
    code.version = 1
    m.operatorCodes.append(code)
    heads = []
    for o in list(sg.outputs):
        n = int(np.prod(sg.tensors[o].shape))
        shape = S.BufferT()
        shape.data = np.frombuffer(np.array([1, n], np.int32).tobytes(), np.uint8)
        m.buffers.append(shape)
        st = S.TensorT()
        st.name, st.shape, st.type, st.buffer = f"head{len(heads)}_shape", np.array([2], np.int32), \
            S.TensorType.INT32, len(m.buffers) - 1
        ot = S.TensorT()
        ot.name, ot.shape, ot.type, ot.buffer = f"head{len(heads)}", np.array([1, n], np.int32), \
            sg.tensors[o].type, 0
        ot.quantization = sg.tensors[o].quantization
        sg.tensors += [st, ot]
        op = S.OperatorT()
        op.opcodeIndex = len(m.operatorCodes) - 1
        op.inputs = np.array([o, len(sg.tensors) - 2], np.int32)
        op.outputs = np.array([len(sg.tensors) - 1], np.int32)
        sg.operators.append(op)
        heads.append(len(sg.tensors) - 1)
    sg.outputs = np.array(heads, np.int32)
    fb = flatbuffers.Builder(1 << 20)
    fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
    with open(dst, "wb") as f:
        f.write(bytes(fb.Output()))


def litert(path, pixels, builtin=False):
    kw = {"experimental_op_resolver_type": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES} if builtin else {}
    it = Interpreter(model_path=path, num_threads=1, **kw)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], pixels[None])
    it.invoke()
    return [it.get_tensor(d["index"]).reshape(-1).astype(np.float32) for d in it.get_output_details()]


def images(size, count):
    names = sorted(n for n in os.listdir(os.path.join(SHARED, "testdata", "images")) if n.endswith(".png"))
    for k in range(count):
        rng = np.random.default_rng(k)
        if k % 2 == 0:
            yield "noise", rng.integers(0, 256, size=(size, size, 3), dtype=np.uint8)
        else:
            name = names[(7 * k) % len(names)]
            img = Image.open(os.path.join(SHARED, "testdata", "images", name)).convert("RGB")
            yield name, np.asarray(img.resize((size, size), Image.BILINEAR), dtype=np.uint8).copy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=6)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for model, size in (("efficientnet_lite0.tflite", 224), ("efficientdet_lite0.tflite", 320)):
            path = os.path.join(tmp, model)
            as_classifier(os.path.join(SHARED, "models", model), path)
            classifier = vision.ImageClassifier.create_from_options(vision.ImageClassifierOptions(
                base_options=mpt.BaseOptions(model_asset_path=path), max_results=-1, score_threshold=-1e30))
            for name, pixels in images(size, args.images):
                result = classifier.classify(mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels))
                default, builtin = litert(path, pixels), litert(path, pixels, builtin=True)
                for h, head in enumerate(result.classifications):
                    ours = np.zeros(default[h].size, np.float32)
                    for c in head.categories:
                        ours[c.index] = c.score
                    # A uint8 head's scores are MediaPipe's dequantized values: compare in the same units.
                    ref, alt = default[h], builtin[h]
                    if ours.max() <= 1.0 and ref.max() > 1.0:
                        ours = np.round(ours * 256)
                    print(f"{model:28} {name:24} output {h}: {ref.size:8d} values, MediaPipe differs from litert's "
                          f"default in {int(np.sum(ours != ref)):6d}, from its built-in kernels in "
                          f"{int(np.sum(ours != alt)):6d}", flush=True)


if __name__ == "__main__":
    main()
