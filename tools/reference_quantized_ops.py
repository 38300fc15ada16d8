#!/usr/bin/env python3
"""Generates the quantized op fixtures: single-op int8/uint8 models and ai-edge-litert's outputs on random inputs.

    python3 tools/reference_quantized_ops.py             # writes Tests/Fixtures/quantized_ops/
    python3 tools/reference_quantized_ops.py --check     # regenerates in memory and reports what changed

Each case is a small model built with tools/tflite_builder.py (random shapes, per-tensor and per-channel weights,
zero points at the ends of their range, asymmetric uint8), its inputs, and the outputs of ai-edge-litert 2.3.0's
default interpreter (the XNNPACK delegate, one thread). The manifest records whether the delegate took the node and
which kernels ran ("xnnpack" or "builtin"), and how many values TFLite's built-in kernels give otherwise; a case the
default interpreter cannot prepare would take the built-in kernels'
outputs (`experimental_op_resolver_type=BUILTIN_WITHOUT_DEFAULT_DELEGATES`). Needs `pip install ai-edge-litert numpy`; deterministic (each case's generator is seeded by its name).
"""
import argparse, json, os, sys, zlib
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tflite_builder import ModelBuilder, options, S  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "quantized_ops")
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def random_q(rng, dt=np.int8, scale=(0.005, 0.2)):
    lo, hi = (-128, 128) if dt == np.int8 else (0, 256)
    return float(rng.uniform(*scale)), int(rng.integers(lo, hi))


def random_values(rng, shape, dt):
    lo, hi = (-128, 128) if dt == np.int8 else (0, 256)
    return rng.integers(lo, hi, size=shape).astype(dt)


def all_bytes(dt, repeat=1):
    return np.tile(np.arange(-128, 128) if dt == np.int8 else np.arange(256), repeat).astype(dt).reshape(1, -1)


def conv_model(rng, kind, n, h, w, cin, cout, k, stride, padding, act=0, per_channel=True, dilation=1, bias=True,
               xq=None, yq=None, multiplier=1, scale_spread=1.0):
    """CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED (kind) with int8 weights and an int32 bias."""
    b = ModelBuilder()
    xq = xq or random_q(rng)
    yq = yq or random_q(rng, scale=(0.02, 0.5))
    channels = cout if kind != "DEPTHWISE_CONV_2D" else cin * multiplier
    if per_channel:
        ws = rng.uniform(0.002, 0.02, size=channels).astype(np.float32)
        if scale_spread > 1:
            ws = np.exp(rng.uniform(0, np.log(scale_spread), size=channels)).astype(np.float32) * np.float32(2e-5)
    else:
        ws = np.array([rng.uniform(0.002, 0.02)], np.float32)
    if kind == "FULLY_CONNECTED":
        wshape, dim = [cout, cin], 0
        x = b.tensor("x", [n, cin], np.int8, *xq)
        y = b.tensor("y", [n, cout], np.int8, *yq)
    else:
        ow = lambda size: (size + stride - 1) // stride if padding == 0 else (size - (k - 1) * dilation - 1) // stride + 1
        x = b.tensor("x", [n, h, w, cin], np.int8, *xq)
        y = b.tensor("y", [n, ow(h), ow(w), channels], np.int8, *yq)
        wshape, dim = ([cout, k, k, cin], 0) if kind == "CONV_2D" else ([1, k, k, channels], 3)
    wv = rng.integers(-127, 128, size=wshape).astype(np.int8)
    wt = b.tensor("w", wshape, np.int8, ws if per_channel else float(ws[0]), 0, data=wv, quantized_dimension=dim)
    inputs = [x, wt]
    if bias:
        bscale = (np.float32(xq[0]) * ws).astype(np.float32)
        bv = rng.integers(-20000, 20000, size=channels).astype(np.int32)
        inputs.append(b.tensor("b", [channels], np.int32, bscale if per_channel else float(bscale[0]), 0, data=bv))
    else:
        inputs.append(-1)
    if kind == "CONV_2D":
        o = options(S.Conv2DOptionsT, padding=padding, strideH=stride, strideW=stride, fusedActivationFunction=act,
                    dilationHFactor=dilation, dilationWFactor=dilation)
        b.op(kind, inputs, [y], S.BuiltinOptions.Conv2DOptions, o, version=3)
    elif kind == "DEPTHWISE_CONV_2D":
        o = options(S.DepthwiseConv2DOptionsT, padding=padding, strideH=stride, strideW=stride,
                    depthMultiplier=multiplier, fusedActivationFunction=act, dilationHFactor=dilation,
                    dilationWFactor=dilation)
        b.op(kind, inputs, [y], S.BuiltinOptions.DepthwiseConv2DOptions, o, version=3)
    else:
        o = options(S.FullyConnectedOptionsT, fusedActivationFunction=act)
        b.op(kind, inputs, [y], S.BuiltinOptions.FullyConnectedOptions, o, version=4)
    shape = [n, cin] if kind == "FULLY_CONNECTED" else [n, h, w, cin]
    return b.build([x], [y]), [random_values(rng, shape, np.int8)]


# Convolutions: 1x1 (the GEMM on rows in place), KxK (gathered windows), strides, padding, dilation, odd channel
# counts, per-tensor and per-channel weights, scales 1000x apart, zero points at the ends, saturation.
@case
def conv_1x1_per_channel(rng): return conv_model(rng, "CONV_2D", 1, 6, 7, 13, 21, 1, 1, 0)
@case
def conv_1x1_per_tensor_relu(rng): return conv_model(rng, "CONV_2D", 1, 5, 5, 16, 8, 1, 1, 1, act=1, per_channel=False)
@case
def conv_3x3_same_relu6(rng): return conv_model(rng, "CONV_2D", 1, 9, 8, 7, 17, 3, 1, 0, act=3)
@case
def conv_3x3_stride2_first_layer(rng): return conv_model(rng, "CONV_2D", 1, 15, 16, 3, 16, 3, 2, 0, act=3)
@case
def conv_5x5_valid_batch2(rng): return conv_model(rng, "CONV_2D", 2, 8, 9, 5, 11, 5, 1, 1)
@case
def conv_3x3_dilation2(rng): return conv_model(rng, "CONV_2D", 1, 10, 9, 6, 9, 3, 1, 0, dilation=2)
@case
def conv_scales_1000x_apart(rng):
    return conv_model(rng, "CONV_2D", 1, 6, 6, 24, 40, 1, 1, 0, scale_spread=1000.0, yq=(0.01, 3))
@case
def conv_zero_points_at_ends(rng):
    return conv_model(rng, "CONV_2D", 1, 7, 7, 9, 10, 3, 2, 0, xq=(0.05, -128), yq=(0.3, 127))
@case
def conv_zero_points_other_ends(rng):
    return conv_model(rng, "CONV_2D", 1, 7, 7, 9, 10, 3, 1, 0, xq=(0.05, 127), yq=(0.3, -128))
@case
def conv_saturating(rng):
    return conv_model(rng, "CONV_2D", 1, 6, 5, 32, 12, 3, 1, 0, yq=(0.004, 5))
@case
def depthwise_3x3_relu6(rng): return conv_model(rng, "DEPTHWISE_CONV_2D", 1, 9, 10, 24, 24, 3, 1, 0, act=3)
@case
def depthwise_3x3_stride2_odd_channels(rng): return conv_model(rng, "DEPTHWISE_CONV_2D", 1, 11, 9, 7, 7, 3, 2, 0)
@case
def depthwise_5x5_stride2(rng): return conv_model(rng, "DEPTHWISE_CONV_2D", 1, 12, 13, 40, 40, 5, 2, 0, act=3)
@case
def depthwise_5x5_valid_per_tensor(rng):
    return conv_model(rng, "DEPTHWISE_CONV_2D", 1, 9, 9, 17, 17, 5, 1, 1, per_channel=False)
@case
def depthwise_dilation2_zero_points(rng):
    return conv_model(rng, "DEPTHWISE_CONV_2D", 1, 9, 8, 33, 33, 3, 1, 0, dilation=2, xq=(0.04, 127),
                      yq=(0.2, -128))
@case
def depthwise_multiplier2(rng): return conv_model(rng, "DEPTHWISE_CONV_2D", 1, 6, 7, 5, 10, 3, 1, 0, multiplier=2)
@case
def fully_connected_per_tensor(rng): return conv_model(rng, "FULLY_CONNECTED", 1, 1, 1, 37, 19, 1, 1, 0,
                                                       per_channel=False)
@case
def fully_connected_rows3_relu(rng): return conv_model(rng, "FULLY_CONNECTED", 3, 1, 1, 64, 33, 1, 1, 0, act=1,
                                                       per_channel=False)
@case
def fully_connected_per_channel_no_bias(rng):
    return conv_model(rng, "FULLY_CONNECTED", 2, 1, 1, 21, 1000, 1, 1, 0, bias=False)


def binary_model(rng, op, dt, a_shape, b_shape, act=0, qs=None):
    b = ModelBuilder()
    qa, qb, qy = qs or (random_q(rng, dt), random_q(rng, dt), random_q(rng, dt, scale=(0.01, 0.4)))
    out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    x = b.tensor("a", a_shape, dt, *qa)
    z = b.tensor("b", b_shape, dt, *qb)
    y = b.tensor("y", out_shape, dt, *qy)
    table = {"ADD": (S.BuiltinOptions.AddOptions, S.AddOptionsT), "SUB": (S.BuiltinOptions.SubOptions, S.SubOptionsT),
             "MUL": (S.BuiltinOptions.MulOptions, S.MulOptionsT)}[op]
    b.op(op, [x, z], [y], table[0], options(table[1], fusedActivationFunction=act), version=2)
    return b.build([x, z], [y]), [random_values(rng, a_shape, dt), random_values(rng, b_shape, dt)]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    for op in ("ADD", "SUB", "MUL"):
        CASES.append(lambda rng, op=op, dt=dt: binary_model(rng, op, dt, [1, 5, 7, 19], [1, 5, 7, 19]))
        CASES[-1].__name__ = f"{op.lower()}_{t}"
        CASES.append(lambda rng, op=op, dt=dt: binary_model(rng, op, dt, [1, 4, 6, 16], [1, 1, 1, 16], act=3))
        CASES[-1].__name__ = f"{op.lower()}_{t}_channel_broadcast_relu6"
    CASES.append(lambda rng, dt=dt: binary_model(rng, "ADD", dt, [2, 3, 5], [1], act=1))
    CASES[-1].__name__ = f"add_{t}_scalar_relu"
    lo, hi = (-128, 127) if dt == np.int8 else (0, 255)
    CASES.append(lambda rng, dt=dt, lo=lo, hi=hi: binary_model(rng, "ADD", dt, [1, 3, 3, 40], [1, 3, 3, 40],
                                                              qs=((0.5, lo), (0.25, hi), (0.05, lo))))
    CASES[-1].__name__ = f"add_{t}_saturating_zero_points_at_ends"


def unary_model(rng, op, in_dt, out_dt, shape=None, xq=None, yq=None, opt=None, inputs=None, version=1):
    b = ModelBuilder()
    shape = shape or [1, 256]
    x = b.tensor("x", shape, in_dt, *(xq or (random_q(rng, in_dt) if in_dt != np.float32 else (None, None))))
    y = b.tensor("y", shape, out_dt, *(yq or (random_q(rng, out_dt) if out_dt != np.float32 else (None, None))))
    b.op(op, [x], [y], *(opt or (0, None)), version=version)
    if inputs is None:
        inputs = [all_bytes(in_dt).reshape(shape)] if shape == [1, 256] else [random_values(rng, shape, in_dt)]
    return b.build([x], [y]), inputs


def tensor_q(rng, dt, scale):
    return (scale, -128 if dt == np.int8 else 0)


# Functions of one byte, on all 256 input values.
for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    CASES.append(lambda rng, dt=dt: unary_model(rng, "LOGISTIC", dt, dt, yq=tensor_q(rng, dt, 1 / 256), version=2))
    CASES[-1].__name__ = f"logistic_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "TANH", dt, dt, yq=(1 / 128, 0 if dt == np.int8 else 128),
                                                version=2))
    CASES[-1].__name__ = f"tanh_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "HARD_SWISH", dt, dt))
    CASES[-1].__name__ = f"hard_swish_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "RELU", dt, dt, version=2))
    CASES[-1].__name__ = f"relu_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "RELU6", dt, dt, version=2))
    CASES[-1].__name__ = f"relu6_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "LEAKY_RELU", dt, dt, opt=(
        S.BuiltinOptions.LeakyReluOptions, options(S.LeakyReluOptionsT, alpha=0.2)), version=2))
    CASES[-1].__name__ = f"leaky_relu_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "DEQUANTIZE", dt, np.float32, version=2))
    CASES[-1].__name__ = f"dequantize_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "QUANTIZE", dt, dt, version=2))
    CASES[-1].__name__ = f"requantize_{t}"
    CASES.append(lambda rng, dt=dt: unary_model(rng, "QUANTIZE", dt, dt, yq=(0.0004, 9 if dt == np.int8 else 140),
                                                xq=(0.2, 3 if dt == np.int8 else 120), version=2))
    CASES[-1].__name__ = f"requantize_{t}_ratio_500"
    other = np.uint8 if dt == np.int8 else np.int8
    CASES.append(lambda rng, dt=dt, other=other: unary_model(rng, "QUANTIZE", dt, other, version=2))
    CASES[-1].__name__ = f"requantize_{t}_to_{np.dtype(other).name}"
    CASES.append(lambda rng, dt=dt: unary_model(
        rng, "QUANTIZE", np.float32, dt, shape=[2, 300], version=2,
        inputs=[np.concatenate([rng.normal(0, 8, size=(2, 290)), np.array([[1e9, -1e9, 0.5, -0.5, 1.5, -2.5, 1e-30,
                                                                              127.5, -128.5, 300]] * 2)],
                               axis=1).astype(np.float32)]))
    CASES[-1].__name__ = f"quantize_float_to_{t}"
CASES.append(lambda rng: unary_model(rng, "ELU", np.int8, np.int8))
CASES[-1].__name__ = "elu_int8"


def tail_inputs(dt):
    """All 256 values, then 7 more (TFLite's Requantize runs groups of 16 on its NEON path, the rest scalar)."""
    return [np.concatenate([all_bytes(dt), all_bytes(dt)[:, 100:107]], axis=1)]


# Exact ties (a ratio of one half): the NEON path rounds them toward +infinity, the scalar tail away from zero.
for src, dst in ((np.int8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)):
    s_name, d_name = np.dtype(src).name, np.dtype(dst).name
    CASES.append(lambda rng, src=src, dst=dst: unary_model(
        rng, "QUANTIZE", src, dst, shape=[1, 263], xq=(0.05, 3 if src == np.int8 else 131),
        yq=(0.1, -7 if dst == np.int8 else 121) if src != dst else (0.0001, 5), inputs=tail_inputs(src), version=2))
    CASES[-1].__name__ = f"requantize_{s_name}_to_{d_name}_ties_and_tail"
CASES.append(lambda rng: unary_model(rng, "QUANTIZE", np.uint8, np.uint8, shape=[1, 263], xq=(0.3, 140),
                                     yq=(0.3 * 300, 128), inputs=tail_inputs(np.uint8), version=2))
CASES[-1].__name__ = "requantize_uint8_ratio_1_over_300_tail"
CASES.append(lambda rng: unary_model(rng, "HARD_SWISH", np.int8, np.int8, shape=[1, 263], inputs=tail_inputs(np.int8)))
CASES[-1].__name__ = "hard_swish_int8_tail"


def pool_model(rng, op, dt, shape, k, stride, padding, act=0, same_q=True):
    b = ModelBuilder()
    q = random_q(rng, dt)
    out = lambda s: (s + stride - 1) // stride if padding == 0 else (s - k) // stride + 1
    x = b.tensor("x", shape, dt, *q)
    y = b.tensor("y", [shape[0], out(shape[1]), out(shape[2]), shape[3]], dt, *(q if same_q else random_q(rng, dt)))
    b.op(op, [x], [y], S.BuiltinOptions.Pool2DOptions,
         options(S.Pool2DOptionsT, padding=padding, strideW=stride, strideH=stride, filterWidth=k, filterHeight=k,
                 fusedActivationFunction=act), version=2)
    return b.build([x], [y]), [random_values(rng, shape, dt)]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    for op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        name = op.lower().replace("_2d", "")
        CASES.append(lambda rng, op=op, dt=dt: pool_model(rng, op, dt, [1, 9, 10, 13], 3, 2, 0))
        CASES[-1].__name__ = f"{name}_{t}_3x3_stride2_same"
        CASES.append(lambda rng, op=op, dt=dt: pool_model(rng, op, dt, [2, 7, 8, 6], 2, 2, 1, act=3))
        CASES[-1].__name__ = f"{name}_{t}_2x2_valid_relu6"
    CASES.append(lambda rng, dt=dt: pool_model(rng, "AVERAGE_POOL_2D", dt, [1, 7, 7, 40], 7, 1, 1))
    CASES[-1].__name__ = f"average_pool_{t}_global_7x7"


def mean_model(rng, dt, shape, axes, keep):
    b = ModelBuilder()
    x = b.tensor("x", shape, dt, *random_q(rng, dt))
    ax = b.tensor("axes", [len(axes)], np.int32, data=np.array(axes, np.int32))
    out = [1 if i in axes else s for i, s in enumerate(shape)] if keep else [s for i, s in enumerate(shape)
                                                                             if i not in axes]
    y = b.tensor("y", out, dt, *random_q(rng, dt))
    b.op("MEAN", [x, ax], [y], S.BuiltinOptions.ReducerOptions, options(S.ReducerOptionsT, keepDims=keep), version=2)
    return b.build([x], [y]), [random_values(rng, shape, dt)]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    CASES.append(lambda rng, dt=dt: mean_model(rng, dt, [1, 7, 6, 24], [1, 2], True))
    CASES[-1].__name__ = f"mean_{t}_spatial_keep_dims"
    CASES.append(lambda rng, dt=dt: mean_model(rng, dt, [2, 5, 5, 9], [1, 2], False))
    CASES[-1].__name__ = f"mean_{t}_spatial"
    CASES.append(lambda rng, dt=dt: mean_model(rng, dt, [3, 4, 50], [2], False))
    CASES[-1].__name__ = f"mean_{t}_last_axis"


def softmax_model(rng, dt, out_dt, rows, depth, beta):
    b = ModelBuilder()
    x = b.tensor("x", [rows, depth], dt, *random_q(rng, dt, scale=(0.02, 0.3)))
    y = b.tensor("y", [rows, depth], out_dt, 1 / 256, -128 if out_dt == np.int8 else 0)
    b.op("SOFTMAX", [x], [y], S.BuiltinOptions.SoftmaxOptions, options(S.SoftmaxOptionsT, beta=beta), version=2)
    return b.build([x], [y]), [random_values(rng, [rows, depth], dt)]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    CASES.append(lambda rng, dt=dt: softmax_model(rng, dt, dt, 3, 1000, 1.0))
    CASES[-1].__name__ = f"softmax_{t}"
    CASES.append(lambda rng, dt=dt: softmax_model(rng, dt, dt, 4, 37, 0.7))
    CASES[-1].__name__ = f"softmax_{t}_beta"


def resize_model(rng, op, dt, shape, size, align=False, half=False):
    b = ModelBuilder()
    q = random_q(rng, dt)
    x = b.tensor("x", shape, dt, *q)
    sz = b.tensor("size", [2], np.int32, data=np.array(size, np.int32))
    y = b.tensor("y", [shape[0], size[0], size[1], shape[3]], dt, *q)
    if op == "RESIZE_BILINEAR":
        o = (S.BuiltinOptions.ResizeBilinearOptions,
             options(S.ResizeBilinearOptionsT, alignCorners=align, halfPixelCenters=half))
    else:
        o = (S.BuiltinOptions.ResizeNearestNeighborOptions,
             options(S.ResizeNearestNeighborOptionsT, alignCorners=align, halfPixelCenters=half))
    b.op(op, [x, sz], [y], *o, version=3)
    return b.build([x], [y]), [random_values(rng, shape, dt)]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    for op in ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"):
        name = "resize_bilinear" if op == "RESIZE_BILINEAR" else "resize_nearest"
        for mode, (align, half) in (("", (False, False)), ("_half_pixel", (False, True)),
                                    ("_align_corners", (True, False))):
            CASES.append(lambda rng, op=op, dt=dt, align=align, half=half:
                         resize_model(rng, op, dt, [1, 5, 7, 6], [9, 13], align, half))
            CASES[-1].__name__ = f"{name}_{t}{mode}"
        CASES.append(lambda rng, op=op, dt=dt: resize_model(rng, op, dt, [1, 6, 9, 3], [4, 5]))
        CASES[-1].__name__ = f"{name}_{t}_down"


def concat_model(rng, dt, shapes, axis, same):
    b = ModelBuilder()
    q = random_q(rng, dt)
    xs = [b.tensor(f"x{i}", s, dt, *(q if same else random_q(rng, dt))) for i, s in enumerate(shapes)]
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    y = b.tensor("y", out, dt, *(q if same else random_q(rng, dt)))
    b.op("CONCATENATION", xs, [y], S.BuiltinOptions.ConcatenationOptions,
         options(S.ConcatenationOptionsT, axis=axis), version=2)
    return b.build(xs, [y]), [random_values(rng, s, dt) for s in shapes]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    CASES.append(lambda rng, dt=dt: concat_model(rng, dt, [[1, 3, 4, 5], [1, 3, 4, 7], [1, 3, 4, 2]], 3, True))
    CASES[-1].__name__ = f"concatenation_{t}_channels"
# Inputs quantized otherwise than the output: TFLite's built-in kernel requantizes uint8 ones (int8 ones it refuses:
# its int8 CONCATENATION needs one scale and zero point throughout, and so does the engine).
CASES.append(lambda rng: concat_model(rng, np.uint8, [[1, 3, 4, 5], [1, 2, 4, 5]], 1, False))
CASES[-1].__name__ = "concatenation_uint8_other_scales"


def pad_model(rng, dt, v2):
    b = ModelBuilder()
    q = random_q(rng, dt)
    x = b.tensor("x", [1, 4, 5, 6], dt, *q)
    p = b.tensor("pads", [4, 2], np.int32, data=np.array([[0, 0], [1, 2], [2, 1], [0, 3]], np.int32))
    y = b.tensor("y", [1, 7, 8, 9], dt, *q)
    ins = [x, p]
    if v2:
        ins.append(b.tensor("value", [1], dt, *q, data=np.array([17], dt)))
    b.op("PADV2" if v2 else "PAD", ins, [y], version=2)
    return b.build([x], [y]), [random_values(rng, [1, 4, 5, 6], dt)]


for dt in (np.int8, np.uint8):
    t = np.dtype(dt).name
    CASES.append(lambda rng, dt=dt: pad_model(rng, dt, False))
    CASES[-1].__name__ = f"pad_{t}"
CASES.append(lambda rng: pad_model(rng, np.int8, True))
CASES[-1].__name__ = "padv2_int8"


def run(data, inputs, builtin=False):
    kw = {"experimental_op_resolver_type": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES} if builtin else {}
    it = Interpreter(model_content=data, num_threads=1, **kw)
    it.allocate_tensors()
    for d, v in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], v)
    it.invoke()
    delegated = any(o["op_name"] == "DELEGATE" for o in it._get_ops_details())
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()], delegated


def generate():
    entries, files = [], {}
    for fn in CASES:
        name = fn.__name__
        data, inputs = fn(rng_for(name))
        try:
            outputs, delegated = run(data, inputs)
            kernels = "xnnpack" if delegated else "builtin"
        except RuntimeError as e:
            if "failed to prepare" not in str(e):
                raise
            outputs, _ = run(data, inputs, builtin=True)
            delegated, kernels = False, "builtin (the default interpreter fails to prepare it)"
        builtin, _ = run(data, inputs, builtin=True)
        files[f"{name}.tflite"] = data
        entry = {"name": name, "model": f"{name}.tflite", "kernels": kernels, "inputs": [], "outputs": [],
                 "builtinDiffers": int(sum(int(np.sum(a != c)) for a, c in zip(outputs, builtin)))}
        for i, v in enumerate(inputs):
            entry["inputs"].append(f"{name}__in{i}.npy")
            files[entry["inputs"][-1]] = v
        for i, v in enumerate(outputs):
            entry["outputs"].append(f"{name}__out{i}.npy")
            files[entry["outputs"][-1]] = v
        entries.append(entry)
        print(f"{name:48} {kernels:8} builtin differs in {entry['builtinDiffers']}")
    return entries, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with the committed fixtures, write nothing")
    args = ap.parse_args()
    entries, files = generate()
    manifest = {"generator": "tools/reference_quantized_ops.py", "interpreter": "ai-edge-litert 2.3.0, 1 thread",
                "cases": entries}
    if args.check:
        changed = []
        for name, v in files.items():
            path = os.path.join(OUT, name)
            old = open(path, "rb").read() if os.path.exists(path) else None
            new = v if isinstance(v, bytes) else None
            if new is None:
                if old is None or not np.array_equal(np.load(path), v):
                    changed.append(name)
            elif old != new:
                changed.append(name)
        print("changed:", changed or "nothing")
        return 1 if changed else 0
    os.makedirs(OUT, exist_ok=True)
    for name, v in files.items():
        path = os.path.join(OUT, name)
        if isinstance(v, bytes):
            with open(path, "wb") as f:
                f.write(v)
        else:
            np.save(path, v)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
