#!/usr/bin/env python3
"""Fixtures of XNNPACK's sigmoid and softmax as TFLite runs them (ai-edge-litert, XNNPACK delegate, one thread) on
one-op LOGISTIC and SOFTMAX models: specials, far and subnormal inputs, softmax rows of 1 to 64 values and rows
whose smallest outputs or intermediates pass below 2^-126 (XNNPACK runs its operators with subnormals flushed to
zero: pthreadpool's PTHREADPOOL_FLAG_DISABLE_DENORMALS). The engine's copies of those kernels
(Sources/TasksVisionEngine/Layers/XNNPACKElementwise*.swift) are checked against them on every machine.

    python3 tools/reference_elementwise.py Tests/Fixtures/engine/x86_avx512_elementwise.json   # an AVX-512 CPU
    qemu-x86_64-static -cpu EPYC-Milan python3 tools/reference_elementwise.py \
        Tests/Fixtures/engine/x86_avx2_elementwise.json                                         # XNNPACK's AVX2 kernels
    chroot ../arm64-check/arm64 /opt/venv/bin/python tools/reference_elementwise.py OUT.json   # arm64

On arm64 run it on arm64 Linux, or in the emulated arm64 root tools/arm64_check.sh sets up (qemu computes the
reciprocal estimate and flush-to-zero as the architecture defines them), and copy OUT.json to
Tests/Fixtures/engine/arm64_elementwise.json.
"""
import json, platform, sys
import flatbuffers
import numpy as np
from ai_edge_litert.interpreter import Interpreter
from bench_layers import finish_model, vec_int


def one_op_model(opcode, n, softmax_beta=None):
    """A .tflite flatbuffer of one op from a [1, n] input to a [1, n] output (schema field numbers)."""
    b = flatbuffers.Builder(1024)

    def tensor(buf, name):
        nm, shape = b.CreateString(name), vec_int(b, [1, n])
        b.StartObject(4)
        b.PrependUOffsetTRelativeSlot(0, shape, 0)
        b.PrependInt8Slot(1, 0, -1)
        b.PrependUint32Slot(2, buf, 0xFFFFFFFF)
        b.PrependUOffsetTRelativeSlot(3, nm, 0)
        return b.EndObject()

    buffers = []
    for _ in range(3):
        b.StartObject(3)
        buffers.append(b.EndObject())
    tensors = [tensor(1, "input"), tensor(2, "output")]
    options = None
    if softmax_beta is not None:
        b.StartObject(1)
        b.PrependFloat32Slot(0, softmax_beta, 0.0)
        options = b.EndObject()
    ins, outs = vec_int(b, [0]), vec_int(b, [1])
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(1, ins, 0)
    b.PrependUOffsetTRelativeSlot(2, outs, 0)
    if options is not None:
        b.PrependUint8Slot(3, 9, 0)  # SoftmaxOptions
        b.PrependUOffsetTRelativeSlot(4, options, 0)
    op = b.EndObject()
    return finish_model(b, tensors, op, opcode, buffers, [0], [1], "reference_elementwise")


def run(model, x):
    it = Interpreter(model_content=model, num_threads=1)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x.reshape(1, -1))
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).ravel()


def bits(a):
    return [int(v) for v in np.asarray(a, dtype=np.float32).view(np.uint32)]


def main():
    rng = np.random.default_rng(20261204)
    specials = np.array([0, -0.0, 1, -1, 0.25, -0.25, 20, -20, 87, -87, 87.33654, -87.33654, 88, -88, 1e-40, -1e-40,
                         1e-30, -1e-30, 3.4e38, -3.4e38, np.inf, -np.inf], dtype=np.float32)
    x = np.concatenate([specials, (rng.standard_normal(1000) * 6).astype(np.float32),
                        rng.uniform(-90, 90, 500).astype(np.float32)])
    sigmoid = {"x": bits(x), "y": bits(run(one_op_model(14, x.size), x))}
    softmax = []
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 23, 37, 64]:
        row = (rng.standard_normal(n) * 4).astype(np.float32)
        softmax.append({"x": bits(row), "y": bits(run(one_op_model(25, n, 1.0), row))})
    # Outputs below 2^-126, flushed to zero by XNNPACK (its threads run with the FPCR's FZ bit).
    row = np.array([0.0] * 1000 + [-87.0], dtype=np.float32)
    softmax.append({"x": bits(row), "y": bits(run(one_op_model(25, row.size, 1.0), row))})
    if platform.machine() not in ("aarch64", "arm64"):
        # Exponentials near 2^-125 whose polynomial term passes below 2^-126 (x86's FTZ/DAZ: that term is zero),
        # and sigmoids of inputs from -87.4 to -86.
        for d in [-86.2, -86.5, -86.64, -86.9, -87.1, -87.3]:
            row = np.array([0.0, d, d - 0.01, -1.0], dtype=np.float32)
            softmax.append({"x": bits(row), "y": bits(run(one_op_model(25, row.size, 1.0), row))})
        near = np.linspace(-87.4, -86.0, 281).astype(np.float32)
        sigmoid["x"] += bits(near)
        sigmoid["y"] += bits(run(one_op_model(14, near.size), near))
    out = {"generator": "tools/reference_elementwise.py", "machine": platform.machine(),
           "sigmoid": sigmoid, "softmax": softmax}
    with open(sys.argv[1] if len(sys.argv) > 1 else f"{platform.machine()}_elementwise.json", "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
