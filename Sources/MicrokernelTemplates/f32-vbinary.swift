import TasksVisionKernels

// ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE and PRELU as XNNPACK's vbinary kernels compute them
// (src/f32-vbinary: `vop` over two runs, `vopc` with the second operand one value, and for a commutative function
// whose first operand is the one value `vopc` with the operands swapped), then its minmax clamp (max with the lower
// bound, then min with the upper). One rounding per operation: a - b then its square for SQUARED_DIFFERENCE;
// MAXIMUM and MINIMUM as the set's `maximum` and `minimum` (x86: `maxps` and `minps`, `a > b ? a : b`, the second
// operand when either is NaN and of two zeros; arm64: `fmax` and `fmin`, NaN-propagating). Lanes are independent,
// so the vector width and the split of the rows never change a value.
// The layer reduces any broadcast to rows of runs (`BinaryRowsArguments`): a per-channel vector is a row stride of
// 0, a value per row (a [N, 1] operand) a step of 0.

/// The rows `p` describes, through `function`.
public func f32BinaryRows(_ function: BinaryElementwiseFunction, _ p: BinaryRowsArguments) {
    switch function {
    case .add: binaryRows(VectorAdd.self, p)
    case .sub: binaryRows(VectorSub.self, p)
    case .mul: binaryRows(VectorMul.self, p)
    case .div: binaryRows(VectorDiv.self, p)
    case .maximum: binaryRows(VectorMaximum.self, p)
    case .minimum: binaryRows(VectorMinimum.self, p)
    case .squaredDifference: binaryRows(VectorSquaredDifference.self, p)
    case .prelu: binaryRows(VectorPReLU.self, p)
    }
}

private protocol VectorBinaryFunction {
    static var commutative: Bool { get }
    static func apply(_ a: Vec, _ b: Vec) -> Vec
    static func apply(_ a: Float, _ b: Float) -> Float
}
private enum VectorAdd: VectorBinaryFunction {
    static var commutative: Bool { true }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec { a + b }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { a + b }
}
private enum VectorSub: VectorBinaryFunction {
    static var commutative: Bool { false }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec { a - b }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { a - b }
}
private enum VectorMul: VectorBinaryFunction {
    static var commutative: Bool { true }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec { a * b }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { a * b }
}
private enum VectorDiv: VectorBinaryFunction {
    static var commutative: Bool { false }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec { a / b }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { a / b }
}
private enum VectorMaximum: VectorBinaryFunction {
    static var commutative: Bool { true }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec {
        var r = Vec()
        for i in 0..<Vec.scalarCount { r[i] = maximum(a[i], b[i]) }
        return r
    }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { maximum(a, b) }
}
private enum VectorMinimum: VectorBinaryFunction {
    static var commutative: Bool { true }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec {
        var r = Vec()
        for i in 0..<Vec.scalarCount { r[i] = minimum(a[i], b[i]) }
        return r
    }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { minimum(a, b) }
}
private enum VectorSquaredDifference: VectorBinaryFunction {
    static var commutative: Bool { true }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec { let d = a - b; return d * d }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { let d = a - b; return d * d }
}
private enum VectorPReLU: VectorBinaryFunction {
    static var commutative: Bool { false }
    @_transparent static func apply(_ a: Vec, _ b: Vec) -> Vec { prelu(a, b) }
    @_transparent static func apply(_ a: Float, _ b: Float) -> Float { a < 0 ? a * b : a }
}

/// Whether the clamp runs (a compile-time constant in each specialization).
private protocol ClampFlag { static var on: Bool { get } }
private enum Clamped: ClampFlag { static var on: Bool { true } }
private enum Unclamped: ClampFlag { static var on: Bool { false } }

@inline(__always) private func binaryRows<F: VectorBinaryFunction>(_ f: F.Type, _ p: BinaryRowsArguments) {
    if p.lo > -.infinity || p.hi < .infinity { binaryRows(f, Clamped.self, p) } else {
        binaryRows(f, Unclamped.self, p)
    }
}

@inline(never) private func binaryRows<F: VectorBinaryFunction, C: ClampFlag>(_: F.Type, _: C.Type,
                                                                               _ p: BinaryRowsArguments) {
    let V = Vec.scalarCount, n = p.columns
    let lo = p.lo, hi = p.hi, vlo = Vec(repeating: lo), vhi = Vec(repeating: hi)
    @_transparent func finish(_ v: Vec) -> Vec { C.on ? clamp(v, vlo, vhi) : v }
    @_transparent func finish(_ v: Float) -> Float {
        guard C.on else { return v }
        let m = lo > v ? lo : v
        return hi < m ? hi : m
    }
    for r in 0..<p.rows {
        let a = p.a + r &* p.aRowStride, b = p.b + r &* p.bRowStride, o = p.output + r &* p.outputRowStride
        var j = 0
        switch (p.aStep != 0, p.bStep != 0) {
        case (true, true):
            while j &+ 2 &* V <= n {
                let x0 = F.apply(loadVec(a + j), loadVec(b + j))
                let x1 = F.apply(loadVec(a + (j &+ V)), loadVec(b + (j &+ V)))
                storeVec(finish(x0), o + j)
                storeVec(finish(x1), o + (j &+ V))
                j &+= 2 &* V
            }
            while j &+ V <= n { storeVec(finish(F.apply(loadVec(a + j), loadVec(b + j))), o + j); j &+= V }
            while j < n { o[j] = finish(F.apply(a[j], b[j])); j &+= 1 }
        case (true, false):
            let s = b[0], vs = Vec(repeating: s)
            while j &+ 2 &* V <= n {
                let x0 = F.apply(loadVec(a + j), vs), x1 = F.apply(loadVec(a + (j &+ V)), vs)
                storeVec(finish(x0), o + j)
                storeVec(finish(x1), o + (j &+ V))
                j &+= 2 &* V
            }
            while j &+ V <= n { storeVec(finish(F.apply(loadVec(a + j), vs)), o + j); j &+= V }
            while j < n { o[j] = finish(F.apply(a[j], s)); j &+= 1 }
        case (false, true):
            // XNNPACK swaps a commutative function's operands so the one value comes second (its `opc` kernel).
            let s = a[0], vs = Vec(repeating: s)
            @_transparent func g(_ x: Vec) -> Vec { F.commutative ? F.apply(x, vs) : F.apply(vs, x) }
            @_transparent func g(_ x: Float) -> Float { F.commutative ? F.apply(x, s) : F.apply(s, x) }
            while j &+ 2 &* V <= n {
                let x0 = g(loadVec(b + j)), x1 = g(loadVec(b + (j &+ V)))
                storeVec(finish(x0), o + j)
                storeVec(finish(x1), o + (j &+ V))
                j &+= 2 &* V
            }
            while j &+ V <= n { storeVec(finish(g(loadVec(b + j))), o + j); j &+= V }
            while j < n { o[j] = finish(g(b[j])); j &+= 1 }
        case (false, false):
            let v = finish(F.apply(a[0], b[0]))
            while j < n { o[j] = v; j &+= 1 }
        }
    }
}
