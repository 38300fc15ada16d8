"""Builds small .tflite models from numpy arrays (single quantized ops and short chains), for probing which kernels
TFLite and MediaPipe run (tools/check_int8_references.py uses its schema). The quantized op fixtures' models are not
made here but by the tests' Swift generator (Tests/TasksVisionEngineTests/QuantizedOpCases.swift).

    b = ModelBuilder()
    x = b.tensor("x", [1, 8, 8, 3], np.int8, scale=0.05, zero_point=-3)
    ...
    b.op("CONV_2D", [x, w, bias], [y], S.BuiltinOptions.Conv2DOptions, options)
    data = b.build(inputs=[x], outputs=[y])

Uses ai-edge-litert's generated schema (object API) and the flatbuffers package it depends on.
"""
import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S

TYPES = {np.dtype(np.float32): S.TensorType.FLOAT32, np.dtype(np.int32): S.TensorType.INT32,
         np.dtype(np.uint8): S.TensorType.UINT8, np.dtype(np.int8): S.TensorType.INT8,
         np.dtype(np.int64): S.TensorType.INT64, np.dtype(np.int16): S.TensorType.INT16}


class ModelBuilder:
    def __init__(self):
        self.tensors, self.operators, self.opcodes = [], [], []
        self.buffers = [S.BufferT()]

    def tensor(self, name, shape, dtype, scale=None, zero_point=None, data=None, quantized_dimension=0):
        """A tensor; `scale` and `zero_point` scalars or per-channel lists; `data` makes it a constant."""
        t = S.TensorT()
        t.name = name
        t.shape = np.array(shape, dtype=np.int32)
        t.type = TYPES[np.dtype(dtype)]
        t.buffer = 0
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale = np.atleast_1d(np.array(scale, dtype=np.float32))
            zp = 0 if zero_point is None else zero_point
            q.zeroPoint = np.atleast_1d(np.array(zp, dtype=np.int64))
            if q.zeroPoint.size == 1 and q.scale.size > 1:
                q.zeroPoint = np.zeros(q.scale.size, dtype=np.int64) + q.zeroPoint[0]
            q.quantizedDimension = quantized_dimension
            t.quantization = q
        if data is not None:
            buf = S.BufferT()
            buf.data = np.frombuffer(np.ascontiguousarray(np.asarray(data, dtype=dtype)).tobytes(), dtype=np.uint8)
            self.buffers.append(buf)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, name, inputs, outputs, options_type=0, options=None, version=1):
        code = getattr(S.BuiltinOperator, name)
        key = (code, version)
        if key not in self.opcodes:
            self.opcodes.append(key)
        o = S.OperatorT()
        o.opcodeIndex = self.opcodes.index(key)
        o.inputs = np.array(inputs, dtype=np.int32)
        o.outputs = np.array(outputs, dtype=np.int32)
        o.builtinOptionsType = options_type
        o.builtinOptions = options
        self.operators.append(o)

    def build(self, inputs, outputs):
        m = S.ModelT()
        m.version = 3
        m.description = "tools/tflite_builder.py"
        codes = []
        for code, version in self.opcodes:
            c = S.OperatorCodeT()
            c.builtinCode = code
            c.deprecatedBuiltinCode = min(code, 127)
            c.version = version
            codes.append(c)
        m.operatorCodes = codes
        sg = S.SubGraphT()
        sg.tensors, sg.operators = self.tensors, self.operators
        sg.inputs = np.array(inputs, dtype=np.int32)
        sg.outputs = np.array(outputs, dtype=np.int32)
        sg.name = "main"
        m.subgraphs = [sg]
        m.buffers = self.buffers
        fb = flatbuffers.Builder(1024)
        fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
        return bytes(fb.Output())


def options(cls, **fields):
    """An options object of the schema's class `cls` (e.g. S.Conv2DOptionsT) with `fields` set."""
    o = cls()
    for k, v in fields.items():
        setattr(o, k, v)
    return o
