import TasksVisionFormat

/// A two-operand elementwise function, in scalar and 8-lane form.
protocol BinaryFunction {
    static func apply(_ a: Float, _ b: Float) -> Float
    static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float>
}

enum AddFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a + b }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a + b }
}
enum SubFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a - b }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a - b }
}
enum MulFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a * b }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a * b }
}
enum DivFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a / b }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a / b }
}
enum MaximumFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { maxLanes(b, a) }
}
enum MinimumFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { minLanes(b, a) }
}
enum SquaredDifferenceFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { (a - b) * (a - b) }
}
/// PRELU: x where x >= 0, else x * alpha (alpha is the second operand, broadcast).
enum PReLUFunction: BinaryFunction {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a < 0 ? a * b : a }
    @inline(__always) static func apply(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        preluLanes(a, b)
    }
}

/// The function of a binary elementwise layer.
enum BinaryOperation: Sendable {
    case add, sub, mul, div, maximum, minimum, squaredDifference, prelu
}

/// Elementwise binary ops with NumPy broadcasting (ADD, SUB, MUL, DIV, MAXIMUM,
/// MINIMUM, SQUARED_DIFFERENCE, PRELU), with a fused activation/PReLU epilogue.
///
/// Equal shapes run as one flat loop; an operand that repeats along leading
/// dimensions (a per-channel vector, a scalar) runs as rows; anything else walks
/// the broadcast strides. Not generic over the function: a generic class's methods run
/// unspecialized when called through `Layer` (a witness call per vector), so `run` switches
/// once on `operation` into loops specialized for each function.
final class BinaryElementwiseLayer: Layer {
    let kind: String
    let operation: BinaryOperation
    let a: UnsafePointer<Float>, b: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let outShape: [Int]
    let aStrides: [Int], bStrides: [Int]
    let count: Int
    let aCount: Int, bCount: Int
    let epilogue: Epilogue
    let channels: Int

    init(kind: String, operation: BinaryOperation, a: UnsafePointer<Float>, aShape: [Int], b: UnsafePointer<Float>,
         bShape: [Int], output: UnsafeMutablePointer<Float>, outShape: [Int], epilogue: Epilogue) {
        self.kind = kind
        self.operation = operation
        self.a = a; self.b = b; self.output = output
        self.outShape = outShape
        self.count = outShape.reduce(1, *)
        self.aCount = aShape.reduce(1, *)
        self.bCount = bShape.reduce(1, *)
        self.aStrides = Self.broadcastStrides(aShape, to: outShape)
        self.bStrides = Self.broadcastStrides(bShape, to: outShape)
        self.epilogue = epilogue
        self.channels = max(outShape.last ?? 1, 1)
        if aCount == count && bCount == count {
            layout = .same
        } else if aCount == count && bCount == 1 {
            layout = .scalarB
        } else if bCount == count && aCount == 1 {
            layout = .scalarA
        } else if aCount == count && bCount > 0 && isTrailing(bStrides, bCount) {
            layout = .trailingB
        } else if bCount == count && aCount > 0 && isTrailing(aStrides, aCount) {
            layout = .trailingA
        }
    }

    /// Strides of `shape` read as `out` (0 along broadcast dimensions).
    static func broadcastStrides(_ shape: [Int], to out: [Int]) -> [Int] {
        let padded = [Int](repeating: 1, count: max(0, out.count - shape.count)) + shape
        var strides = [Int](repeating: 0, count: out.count)
        var s = 1
        for i in stride(from: out.count - 1, through: 0, by: -1) {
            strides[i] = padded[i] == 1 && out[i] != 1 ? 0 : s
            s *= padded[i]
        }
        return strides
    }

    /// Broadcast shape of two operands, or nil when they are incompatible.
    static func broadcastShape(_ x: [Int], _ y: [Int]) -> [Int]? {
        let n = max(x.count, y.count)
        let px = [Int](repeating: 1, count: n - x.count) + x
        let py = [Int](repeating: 1, count: n - y.count) + y
        var out: [Int] = []
        for i in 0..<n {
            if px[i] == py[i] || py[i] == 1 { out.append(px[i]) } else if px[i] == 1 { out.append(py[i]) } else {
                return nil
            }
        }
        return out
    }

    var flops: Double { Double(count) }

    /// How the operands line up with the output, decided once at load.
    enum Layout { case same, scalarB, scalarA, trailingB, trailingA, strided }
    private(set) var layout: Layout = .strided

    /// Memory-bound: each output reads two operands.
    var parallelWork: Double { Double(count) * memoryBoundWorkFactor }

    /// Rows of the output per item: about 16K floats (64 KB), so each item's epilogue runs on
    /// values still in the first-level cache, and a large map splits over the threads.
    var rowsPerItem: Int { max(1, 16_384 / channels) }

    func run(_ context: RunContext) {
        switch operation {
        case .add: run(AddFunction.self, context)
        case .sub: run(SubFunction.self, context)
        case .mul: run(MulFunction.self, context)
        case .div: run(DivFunction.self, context)
        case .maximum: run(MaximumFunction.self, context)
        case .minimum: run(MinimumFunction.self, context)
        case .squaredDifference: run(SquaredDifferenceFunction.self, context)
        case .prelu: run(PReLUFunction.self, context)
        }
    }

    @inline(__always)
    private func run<F: BinaryFunction>(_ f: F.Type, _ context: RunContext) {
        guard layout != .strided else {
            strided(f)
            epilogue.apply(output, rows: count / channels, channels: channels, stride: channels)
            return
        }
        let rows = count / channels, per = rowsPerItem
        parallelFor((rows + per - 1) / per, context: context) { item, _ in
            let first = item * per, last = min(rows, first + per)
            compute(f, first * channels, last * channels)
            epilogue.apply(output + first * channels, rows: last - first, channels: channels, stride: channels,
                           firstRow: first)
        }
    }

    /// Outputs start..<end of the layouts that are not `.strided`.
    @inline(__always)
    private func compute<F: BinaryFunction>(_ f: F.Type, _ start: Int, _ end: Int) {
        switch layout {
        case .same:
            same(f, output + start, a + start, b + start, end - start)
        case .scalarB:
            let s = b[0], s8 = SIMD8<Float>(repeating: s)
            var i = start
            while i + 8 <= end { store8(F.apply(load8(a + i), s8), output + i); i += 8 }
            while i < end { output[i] = F.apply(a[i], s); i += 1 }
        case .scalarA:
            let s = a[0], s8 = SIMD8<Float>(repeating: s)
            var i = start
            while i + 8 <= end { store8(F.apply(s8, load8(b + i)), output + i); i += 8 }
            while i < end { output[i] = F.apply(s, b[i]); i += 1 }
        case .trailingB:
            var i = start
            while i < end {
                let j = i % bCount, n = min(end - i, bCount - j)
                same(f, output + i, a + i, b + j, n)
                i += n
            }
        case .trailingA:
            var i = start
            while i < end {
                let j = i % aCount, n = min(end - i, aCount - j)
                same(f, output + i, a + j, b + i, n)
                i += n
            }
        case .strided:
            break
        }
    }

    /// True when the operand is exactly the innermost `n` elements of the output, repeated.
    func isTrailing(_ strides: [Int], _ n: Int) -> Bool {
        var inner = 1
        for i in stride(from: outShape.count - 1, through: 0, by: -1) {
            if inner == n { return strides[..<(i + 1)].allSatisfy { $0 == 0 } }
            if strides[i] != inner { return false }
            inner *= outShape[i]
        }
        return inner == n
    }

    @inline(__always)
    func same<F: BinaryFunction>(_ f: F.Type, _ o: UnsafeMutablePointer<Float>, _ x: UnsafePointer<Float>,
                                 _ y: UnsafePointer<Float>, _ n: Int) {
        var i = 0
        while i + 8 <= n { store8(F.apply(load8(x + i), load8(y + i)), o + i); i += 8 }
        while i < n { o[i] = F.apply(x[i], y[i]); i += 1 }
    }

    /// The general broadcast walk; its index lives on the stack (no allocation per run).
    @inline(__always)
    func strided<F: BinaryFunction>(_ f: F.Type) {
        let rank = outShape.count
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(rank, 1)) { index in
            index.initialize(repeating: 0)
            strided(f, index)
        }
    }

    @inline(__always)
    private func strided<F: BinaryFunction>(_ f: F.Type, _ index: UnsafeMutableBufferPointer<Int>) {
        let rank = outShape.count
        var ia = 0, ib = 0
        for i in 0..<count {
            output[i] = F.apply(a[ia], b[ib])
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                ia += aStrides[d]; ib += bStrides[d]
                if index[d] < outShape[d] { break }
                ia -= aStrides[d] * outShape[d]; ib -= bStrides[d] * outShape[d]
                index[d] = 0
                d -= 1
            }
        }
    }
}
