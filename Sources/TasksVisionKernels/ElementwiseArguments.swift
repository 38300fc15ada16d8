/// The function of a two-operand elementwise kernel (`f32-vbinary`), as TFLite's ops name them.
public enum BinaryElementwiseFunction: Sendable {
    case add, sub, mul, div, maximum, minimum, squaredDifference
    /// `a < 0 ? a * b : a` (b the slopes).
    case prelu

    /// Whether XNNPACK treats the operands as interchangeable: where only the first one is broadcast along the
    /// innermost run, it computes `f(b, a)` with its `opc` kernel (the order changes only which NaN or which zero
    /// MAXIMUM and MINIMUM return).
    public var isCommutative: Bool {
        switch self {
        case .add, .mul, .maximum, .minimum, .squaredDifference: return true
        case .sub, .div, .prelu: return false
        }
    }
}

/// What `f32-vbinary` computes: `rows` rows of `columns` outputs, `output[r * outputRowStride + j] =
/// clamp(f(a[r * aRowStride + j * aStep], b[r * bRowStride + j * bStep]), lo, hi)`. A step of 0 repeats one value
/// along the row (a broadcast operand), 1 reads a run; a row stride of 0 repeats one row.
public struct BinaryRowsArguments {
    public var a: UnsafePointer<Float>
    public var aRowStride: Int
    public var aStep: Int
    public var b: UnsafePointer<Float>
    public var bRowStride: Int
    public var bStep: Int
    public var output: UnsafeMutablePointer<Float>
    public var outputRowStride: Int
    public var rows: Int
    public var columns: Int
    /// The clamp after the function (a fused activation; -inf and +inf for none), max then min as XNNPACK's minmax
    /// kernels.
    public var lo: Float
    public var hi: Float

    public init(a: UnsafePointer<Float>, aRowStride: Int, aStep: Int, b: UnsafePointer<Float>, bRowStride: Int,
                bStep: Int, output: UnsafeMutablePointer<Float>, outputRowStride: Int, rows: Int, columns: Int,
                lo: Float = -.infinity, hi: Float = .infinity) {
        self.a = a; self.aRowStride = aRowStride; self.aStep = aStep
        self.b = b; self.bRowStride = bRowStride; self.bStep = bStep
        self.output = output; self.outputRowStride = outputRowStride
        self.rows = rows; self.columns = columns; self.lo = lo; self.hi = hi
    }
}

/// One output pixel of an average pooling without padding (`f32-avgpool-9p`): `channels` outputs, each the sum of
/// the window's `elements` inputs in XNNPACK's order and passes, times `scale`, clamped to `lo...hi`.
public struct AveragePoolArguments {
    /// The window's first input (channel 0 of the block), and where each element is, in floats from it, in
    /// XNNPACK's order (its indirection buffer: column by column).
    public var origin: UnsafePointer<Float>
    public var offsets: UnsafePointer<Int>
    public var elements: Int
    public var channels: Int
    public var output: UnsafeMutablePointer<Float>
    public var scale: Float
    public var lo: Float
    public var hi: Float

    public init(origin: UnsafePointer<Float>, offsets: UnsafePointer<Int>, elements: Int, channels: Int,
                output: UnsafeMutablePointer<Float>, scale: Float, lo: Float = -.infinity, hi: Float = .infinity) {
        self.origin = origin; self.offsets = offsets; self.elements = elements; self.channels = channels
        self.output = output; self.scale = scale; self.lo = lo; self.hi = hi
    }
}
