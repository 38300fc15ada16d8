import TasksVisionFormat
import TasksVisionKernels

/// The function of a binary elementwise layer.
enum BinaryOperation: Sendable {
    case add, sub, mul, div, maximum, minimum, squaredDifference, prelu

    /// The kernel's name for it.
    var function: BinaryElementwiseFunction {
        switch self {
        case .add: return .add
        case .sub: return .sub
        case .mul: return .mul
        case .div: return .div
        case .maximum: return .maximum
        case .minimum: return .minimum
        case .squaredDifference: return .squaredDifference
        case .prelu: return .prelu
        }
    }
}

/// Elementwise binary ops with NumPy broadcasting (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, PRELU),
/// with a fused activation/PReLU epilogue, on the kernel set's `f32-vbinary` kernel.
///
/// As XNNPACK's binary operators: at load the shapes are reduced to as few dimensions as the broadcast allows
/// (neighbouring dimensions that both operands read alike merge; dimensions of size 1 drop), the innermost one a run
/// each operand reads whole or as one repeated value, the next the kernel's rows, any outer ones slabs of rows.
/// A run computes each output alone, so the split into items (slabs x blocks of rows) never changes a value.
final class BinaryElementwiseLayer: Layer {
    let kind: String
    let operation: BinaryOperation
    let a: UnsafePointer<Float>, b: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let outShape: [Int]
    let count: Int
    let epilogue: Epilogue
    let channels: Int
    /// The reduced shape: runs of `columns` outputs, `rows` runs a slab; each operand's steps (0 or 1) and strides.
    let columns: Int, rows: Int
    let aStep: Int, bStep: Int, aRowStride: Int, bRowStride: Int
    /// Where each slab starts in `a` and `b` (the output's slabs are `rows * columns` apart).
    let aSlabs: [Int], bSlabs: [Int]
    /// The epilogue's clamp, in the kernel, when the epilogue is no more than that (else the epilogue's own pass).
    let kernelClamp: (lo: Float, hi: Float)?
    let kernel: (BinaryElementwiseFunction, BinaryRowsArguments) -> Void

    init(kind: String, operation: BinaryOperation, a: UnsafePointer<Float>, aShape: [Int], b: UnsafePointer<Float>,
         bShape: [Int], output: UnsafeMutablePointer<Float>, outShape: [Int], epilogue: Epilogue,
         kernels: Microkernels = .portable) {
        self.kind = kind
        self.operation = operation
        self.a = a; self.b = b; self.output = output
        self.outShape = outShape
        self.count = outShape.reduce(1, *)
        self.epilogue = epilogue
        self.channels = max(outShape.last ?? 1, 1)
        kernel = kernels.binary
        let clampOnly = epilogue.bias == nil && epilogue.residual == nil && epilogue.alpha == nil
            && epilogue.activation != .tanh
        kernelClamp = clampOnly ? epilogue.bounds : nil
        let dims = Self.reducedDimensions(out: outShape, a: Self.broadcastStrides(aShape, to: outShape),
                                          b: Self.broadcastStrides(bShape, to: outShape))
        let inner = dims.first ?? (size: 1, a: 0, b: 0)
        columns = inner.size
        aStep = inner.a != 0 ? 1 : 0
        bStep = inner.b != 0 ? 1 : 0
        let rowDimension = dims.count > 1 ? dims[1] : (size: 1, a: 0, b: 0)
        rows = rowDimension.size
        aRowStride = rowDimension.a
        bRowStride = rowDimension.b
        // The slabs' offsets, outer dimensions as an odometer (the last dimension fastest).
        var aSlabs = [0], bSlabs = [0]
        for d in dims.dropFirst(2) {
            var na: [Int] = [], nb: [Int] = []
            na.reserveCapacity(aSlabs.count * d.size)
            nb.reserveCapacity(bSlabs.count * d.size)
            for i in 0..<d.size {
                na.append(contentsOf: aSlabs.map { $0 + i * d.a })
                nb.append(contentsOf: bSlabs.map { $0 + i * d.b })
            }
            aSlabs = na; bSlabs = nb
        }
        self.aSlabs = aSlabs
        self.bSlabs = bSlabs
    }

    /// The output's dimensions, innermost first, with each operand's stride (0 where it is broadcast): dimensions of
    /// size 1 dropped, and a dimension merged into the one inside it where both operands read the two as one.
    static func reducedDimensions(out: [Int], a: [Int], b: [Int]) -> [(size: Int, a: Int, b: Int)] {
        var dims: [(size: Int, a: Int, b: Int)] = []
        for i in stride(from: out.count - 1, through: 0, by: -1) where out[i] != 1 {
            let d = (size: out[i], a: a[i], b: b[i])
            if let last = dims.last {
                func merges(_ inner: Int, _ outer: Int) -> Bool {
                    inner == 0 ? outer == 0 : outer == inner * last.size
                }
                if merges(last.a, d.a) && merges(last.b, d.b) {
                    dims[dims.count - 1] = (last.size * d.size, last.a, last.b)
                    continue
                }
            }
            dims.append(d)
        }
        return dims
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

    /// Memory-bound: each output reads two operands.
    var parallelWork: Double { Double(count) * memoryBoundWorkFactor }

    /// Rows of a slab per item: about 16K floats (64 KB), so each item's epilogue runs on values still in the
    /// first-level cache, and a large map splits over the threads.
    var rowsPerItem: Int { max(1, 16_384 / max(columns, 1)) }

    func run(_ context: RunContext) {
        guard count > 0 else { return }
        let per = rowsPerItem, blocks = (rows + per - 1) / per, slabRows = rows * columns
        let function = operation.function
        parallelFor(aSlabs.count * blocks, context: context) { item, _ in
            let slab = item / blocks, first = (item % blocks) * per, n = min(per, rows - first)
            let out = output + slab * slabRows + first * columns
            var arguments = BinaryRowsArguments(
                a: a + aSlabs[slab] + first * aRowStride, aRowStride: aRowStride, aStep: aStep,
                b: b + bSlabs[slab] + first * bRowStride, bRowStride: bRowStride, bStep: bStep,
                output: out, outputRowStride: columns, rows: n, columns: columns)
            if let kernelClamp {
                arguments.lo = kernelClamp.lo
                arguments.hi = kernelClamp.hi
            }
            kernel(function, arguments)
            if kernelClamp == nil {
                let start = slab * slabRows + first * columns
                epilogue.apply(out, rows: n * columns / channels, channels: channels, stride: channels,
                               firstRow: start / channels)
            }
        }
    }
}
