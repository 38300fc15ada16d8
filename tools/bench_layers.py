#!/usr/bin/env python3
"""Times a model's convolutions one by one on our engine and on TFLite with XNNPACK, to show
which layers a whole-model ratio (tools/bench_engine.py) comes from.

    swift build -c release && python3 tools/bench_layers.py hand_landmark_full.tflite [--threads 1]

Each CONV_2D and DEPTHWISE_CONV_2D that `vision-bench --layers` lists becomes a model of that
one op (same shapes, kernel and stride, random weights, no activation), written to a temporary
directory; both engines run it alternately, in rounds, and the table gives each one's best
median and our best over theirs. A layer alone starts from warmer caches than inside its model
(its input was written by the previous run of itself), and the microseconds of Python around
each TFLite call counts against TFLite: trust ratios of layers above ~30 us, and read the
whole-model ratio from bench_engine.py. Needs `pip install ai-edge-litert numpy flatbuffers`.
"""
import argparse, json, os, re, subprocess, tempfile
import flatbuffers
import numpy as np
from bench_engine import tflite_median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, ".build", "release", "vision-bench")
LAYER = re.compile(r"^\s*(CONV_2D|DEPTHWISE_CONV_2D) (\d+)x(\d+)x(\d+) k(\d+)x(\d+) s(\d+)(?: d(\d+)x\d+)? -> "
                   r"(\d+)x(\d+)x(\d+)")


def layers(model, threads):
    out = subprocess.run([BENCH, "--model", model, "--threads", str(threads), "--runs", "3", "--layers", "--apart"],
                         check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        m = LAYER.match(line)
        if m:
            op = m.group(1)
            inH, inW, inC, kH, kW, s = map(int, m.groups()[1:7])
            d = int(m.group(8) or 1)
            outH, outW, outC = map(int, m.groups()[8:])
            found.append((op, inH, inW, inC, kH, kW, s, outH, outW, outC, d))
    return found


def padding(inSize, k, s, outSize, d=1):
    """0 (SAME) or 1 (VALID), whichever gives the output size."""
    if outSize == -(-inSize // s):
        return 0
    if outSize == (inSize - (k - 1) * d - 1) // s + 1:
        return 1
    raise ValueError(f"no padding gives {inSize} -> {outSize} with k {k} s {s}")


def one_op_model(op, inH, inW, inC, kH, kW, s, outH, outW, outC, d=1):
    """A .tflite flatbuffer (schema field numbers of tensorflow/lite/schema/schema.fbs)."""
    rng = np.random.default_rng(1)
    depthwise = op == "DEPTHWISE_CONV_2D"
    wshape = [1, kH, kW, outC] if depthwise else [outC, kH, kW, inC]
    weights = (rng.standard_normal(wshape) * 0.1).astype(np.float32)
    bias = (rng.standard_normal([outC]) * 0.1).astype(np.float32)
    pad = padding(inH, kH, s, outH, d)
    b = flatbuffers.Builder(1024)

    def buffer(data):
        if data is None:
            b.StartObject(3)
            return b.EndObject()
        raw = data.tobytes()
        b.StartVector(1, len(raw), 16)
        b.head = b.head - len(raw)
        b.Bytes[b.head:b.head + len(raw)] = raw
        vec = b.EndVector()
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(0, vec, 0)
        return b.EndObject()

    def tensor(shape, buf, name):
        n = b.CreateString(name)
        sh = vec_int(b, shape)
        b.StartObject(4)
        b.PrependUOffsetTRelativeSlot(0, sh, 0)
        b.PrependInt8Slot(1, 0, -1)  # FLOAT32, written even though it is the default
        b.PrependUint32Slot(2, buf, 0xFFFFFFFF)
        b.PrependUOffsetTRelativeSlot(3, n, 0)
        return b.EndObject()

    buffers = [buffer(None), buffer(None), buffer(weights), buffer(bias), buffer(None)]
    tensors = [tensor([1, inH, inW, inC], 1, "input"), tensor(wshape, 2, "weights"),
               tensor([outC], 3, "bias"), tensor([1, outH, outW, outC], 4, "output")]
    # Options: padding, stride_w, stride_h, (depth_multiplier), fused_activation_function.
    if depthwise:
        b.StartObject(7)
        b.PrependInt8Slot(0, pad, -1)
        b.PrependInt32Slot(1, s, 0)
        b.PrependInt32Slot(2, s, 0)
        b.PrependInt32Slot(3, outC // inC, 0)
        b.PrependInt32Slot(5, d, 0)
        b.PrependInt32Slot(6, d, 0)
    else:
        b.StartObject(6)
        b.PrependInt8Slot(0, pad, -1)
        b.PrependInt32Slot(1, s, 0)
        b.PrependInt32Slot(2, s, 0)
        b.PrependInt32Slot(4, d, 0)
        b.PrependInt32Slot(5, d, 0)
    options = b.EndObject()
    ins, outs = vec_int(b, [0, 1, 2]), vec_int(b, [3])
    b.StartObject(5)
    b.PrependUint32Slot(0, 0, 0)
    b.PrependUOffsetTRelativeSlot(1, ins, 0)
    b.PrependUOffsetTRelativeSlot(2, outs, 0)
    b.PrependUint8Slot(3, 2 if depthwise else 1, 0)
    b.PrependUOffsetTRelativeSlot(4, options, 0)
    operator = b.EndObject()

    return finish_model(b, tensors, operator, 4 if depthwise else 3, buffers, [0], [3], "bench_layers")


def vec_int(b, values):
    """A flatbuffer vector of int32."""
    b.StartVector(4, len(values), 4)
    for v in reversed(values):
        b.PrependInt32(v)
    return b.EndVector()


def vec_tables(b, items):
    """A flatbuffer vector of tables."""
    b.StartVector(4, len(items), 4)
    for t in reversed(items):
        b.PrependUOffsetTRelative(t)
    return b.EndVector()


def finish_model(b, tensors, operator, opcode, buffers, inputs, outputs, description):
    """A .tflite flatbuffer of one subgraph running one operator of builtin code `opcode` (schema version 3)."""
    tvec, opvec = vec_tables(b, tensors), vec_tables(b, [operator])
    gin, gout = vec_int(b, inputs), vec_int(b, outputs)
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(0, tvec, 0)
    b.PrependUOffsetTRelativeSlot(1, gin, 0)
    b.PrependUOffsetTRelativeSlot(2, gout, 0)
    b.PrependUOffsetTRelativeSlot(3, opvec, 0)
    subgraph = b.EndObject()
    b.StartObject(4)
    b.PrependInt8Slot(0, opcode, 0)
    b.PrependInt32Slot(2, 1, 1)
    b.PrependInt32Slot(3, opcode, 0)
    code = b.EndObject()
    codes, graphs, bufs = vec_tables(b, [code]), vec_tables(b, [subgraph]), vec_tables(b, buffers)
    desc = b.CreateString(description)
    b.StartObject(5)
    b.PrependUint32Slot(0, 3, 0)
    b.PrependUOffsetTRelativeSlot(1, codes, 0)
    b.PrependUOffsetTRelativeSlot(2, graphs, 0)
    b.PrependUOffsetTRelativeSlot(3, desc, 0)
    b.PrependUOffsetTRelativeSlot(4, bufs, 0)
    model = b.EndObject()
    b.Finish(model, file_identifier=b"TFL3")
    return bytes(b.Output())


def ours_median(path, threads, runs, cpu_time=False):
    out = subprocess.run([BENCH, "--model", path, "--threads", str(threads), "--runs", str(runs), "--json",
                          "--no-profile"] + (["--cpu-time"] if cpu_time else []),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["medianMs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", help="a file name under Models/, or a path")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpu-time", action="store_true", help="time by thread CPU time (one thread; a loaded machine)")
    args = ap.parse_args()
    if args.cpu_time and args.threads != 1:
        ap.error("--cpu-time measures one thread")
    model = args.model if os.path.exists(args.model) else os.path.join(ROOT, "Models", args.model)
    total_ours = total_theirs = 0.0
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    first = subprocess.run([BENCH, "--model", model, "--threads", str(args.threads), "--runs", "1", "--no-profile"],
                           check=True, capture_output=True, text=True).stdout.splitlines()[0]
    kernels = re.search(r"kernels (\S+)", first)
    print(f"{os.path.basename(model)}: {cpu}, kernels {kernels.group(1) if kernels else '?'}, "
          f"{args.threads} thread(s), best of {args.rounds} medians of {args.runs} runs")
    print(f"{'layer':62} {'ours ms':>8} {'tflite ms':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for i, layer in enumerate(layers(model, args.threads)):
            path = os.path.join(tmp, f"layer{i}.tflite")
            with open(path, "wb") as f:
                f.write(one_op_model(*layer))
            ours, theirs = [], []
            for _ in range(args.rounds):
                ours.append(ours_median(path, args.threads, args.runs, args.cpu_time))
                theirs.append(tflite_median(path, args.threads, args.runs, cpu_time=args.cpu_time))
            o, t = min(ours), min(theirs)
            total_ours += o
            total_theirs += t
            op, inH, inW, inC, kH, kW, s, outH, outW, outC, d = layer
            dilation = f" d{d}" if d > 1 else ""
            name = f"{'DW' if op == 'DEPTHWISE_CONV_2D' else 'CONV'} {inH}x{inW}x{inC} k{kH}x{kW} s{s}{dilation} -> {outC}"
            print(f"{name:62} {o:8.3f} {t:9.3f} {o / t:6.2f}", flush=True)
    print(f"{'sum':62} {total_ours:8.3f} {total_theirs:9.3f} {total_ours / total_theirs:6.2f}")


if __name__ == "__main__":
    main()
