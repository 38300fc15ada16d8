import TasksVisionFormat

/// 8-bit MEAN as XNNPACK's reduce operator computes it (`qs8-rsum` / `qs8-rdsum` sums of the raw values in 32 bits,
/// exact in any order, then its reference int32 -> qs8 convert): `nearbyint(Float(sum) * s + z)` clamped, with
/// `s = (inputScale / outputScale) * (1 / count)` and `z = outputZeroPoint - (count * inputZeroPoint) * s` in float.
final class QuantizedMeanLayer: Layer {
    let kind = "MEAN"
    let input: UnsafeRawPointer
    let output: UnsafeMutableRawPointer
    let type: TensorType
    let inShape: [Int]
    /// Per input axis: the output stride it advances by (0 for a reduced axis).
    let outStrides: [Int]
    let outCount: Int
    let scale: Float, zeroPoint: Float
    let lo: Int32, hi: Int32

    init(input: UnsafeRawPointer, inShape: [Int], axes: Set<Int>, output: UnsafeMutableRawPointer,
         from x: QuantizedActivation, to y: QuantizedActivation) {
        self.input = input; self.output = output; type = x.type; self.inShape = inShape
        var strides = [Int](repeating: 0, count: inShape.count)
        var step = 1
        for d in (0..<inShape.count).reversed() where !axes.contains(d) {
            strides[d] = step
            step *= inShape[d]
        }
        outStrides = strides
        outCount = step
        let count = inShape.enumerated().reduce(1) { axes.contains($1.offset) ? $0 * $1.element : $0 }
        scale = (x.scale / y.scale) * (1 / Float(count))
        zeroPoint = Float(y.zeroPoint) - Float(Int32(count)) * Float(x.zeroPoint) * scale
        lo = y.lo; hi = y.hi
    }

    var flops: Double { Double(inShape.reduce(1, *)) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        if type == .int8 { run(Int8.self) } else { run(UInt8.self) }
    }

    private func run<T: FixedWidthInteger>(_: T.Type) {
        let x = input.assumingMemoryBound(to: T.self), y = output.assumingMemoryBound(to: T.self)
        var sums = [Int32](repeating: 0, count: outCount)
        let rank = inShape.count, total = inShape.reduce(1, *)
        var index = [Int](repeating: 0, count: rank)
        var o = 0
        for i in 0..<total {
            sums[o] &+= Int32(x[i])
            var d = rank - 1
            while d >= 0 {
                index[d] += 1; o += outStrides[d]
                if index[d] < inShape[d] { break }
                o -= outStrides[d] * inShape[d]; index[d] = 0
                d -= 1
            }
        }
        for (i, s) in sums.enumerated() {
            let v = (Float(s) * scale + zeroPoint).rounded(.toNearestOrEven)
            y[i] = T(truncatingIfNeeded: Int32(min(max(v, Float(lo)), Float(hi))))
        }
    }
}
