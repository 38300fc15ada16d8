/// MEAN, SUM, REDUCE_MAX, REDUCE_MIN over any set of axes. The output layout is the
/// same with or without `keep_dims`, so only the reduced axes matter here. Sums follow XNNPACK's reduce operator:
/// a run of axes that ends with the last one is contiguous (`f32-rsum`, `rowSum`); any other run sums its rows in
/// order (`f32-rdsum`); a MEAN then multiplies by the reciprocal of the count.
final class ReduceLayer: Layer {
    enum Function { case mean, sum, max, min }
    let kind: String
    let function: Function
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let inShape: [Int]
    let reduced: [Bool]
    let outCount: Int
    /// When the reduced axes are one run of adjacent axes (global pooling over H and W, a
    /// single axis): the input seen as [outer, span, inner], reduced over `span`, which has
    /// its own vectorized path.
    let block: (outer: Int, span: Int, inner: Int)?
    /// Whether the reduced axes end with the last one: each output is the sum of one contiguous run.
    let contiguous: Bool

    /// `unitAxesContiguous`: reduced axes followed only by axes of size 1 count as contiguous
    /// (`Interpreter.Options.reducesOverUnitAxesContiguously`).
    init(kind: String, function: Function, input: UnsafePointer<Float>, inShape: [Int], axes: Set<Int>,
         output: UnsafeMutablePointer<Float>, unitAxesContiguous: Bool = false) {
        self.kind = kind
        self.function = function
        self.input = input
        self.output = output
        self.inShape = inShape
        self.reduced = (0..<inShape.count).map { axes.contains($0) }
        self.outCount = zip(inShape, reduced).reduce(1) { $0 * ($1.1 ? 1 : $1.0) }
        if let first = reduced.firstIndex(of: true), let last = reduced.lastIndex(of: true),
            reduced[first...last].allSatisfy({ $0 }) {
            block = (inShape[..<first].reduce(1, *), inShape[first...last].reduce(1, *),
                     inShape[(last + 1)...].reduce(1, *))
        } else {
            block = nil
        }
        let trailing = reduced.lastIndex(of: true).map { inShape[($0 + 1)...].allSatisfy { $0 == 1 } } ?? false
        contiguous = block != nil && (reduced.last == true || (unitAxesContiguous && trailing))
    }

    func run(_ context: RunContext) {
        let initial: Float = function == .max ? -.infinity : (function == .min ? .infinity : 0)
        output.initialize(repeating: initial, count: outCount)
        let count = inShape.reduce(1, *)
        if let b = block, contiguous, function == .mean || function == .sum {
            let scale = function == .mean ? 1 / Float(max(b.span, 1)) : 1
            for n in 0..<b.outer { output[n] += Self.rowSum(input + n * b.span, count: b.span) * scale }
            return
        }
        if let b = block {
            reduceBlock(outer: b.outer, span: b.span, inner: b.inner)
        } else {
            reduceAnyAxes(count: count)
        }
        if function == .mean {
            // Times the reciprocal, as XNNPACK's reduce kernels scale the sum (a division
            // rounds differently in a quarter of the outputs).
            let scale = 1 / Float(max(count / max(outCount, 1), 1))
            for i in 0..<outCount { output[i] *= scale }
        }
    }

    /// One contiguous run's sum in the order of XNNPACK's x86 `f32-rsum` kernels
    /// (`xnn_f32_rsum_ukernel__avx512f_u32_acc2`; its AVX kernel's four 8-lane accumulators give the same sums):
    /// two 16-lane accumulators taking alternate vectors, a last whole vector into the first, the two added, the tail
    /// into the first, then the lanes halved (16 to 8 to 4 to 2 to 1, each half added to the lower one).
    static func rowSum(_ x: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = SIMD16<Float>(), acc1 = SIMD16<Float>()
        var i = 0
        while count - i >= 32 {
            acc0 += load16(x + i)
            acc1 += load16(x + i + 16)
            i += 32
        }
        if count - i >= 16 { acc0 += load16(x + i); i += 16 }
        acc0 += acc1
        for l in 0..<(count - i) { acc0[l] += x[i + l] }
        let a8 = acc0.lowHalf + acc0.highHalf, a4 = a8.lowHalf + a8.highHalf, a2 = a4.lowHalf + a4.highHalf
        return a2[0] + a2[1]
    }

    @inline(__always)
    static func load16(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    /// [outer, span, inner] over `span` (for NHWC global pooling: whole channel vectors per
    /// pixel, in pixel order), so every output sums the same terms in the same order as the
    /// general walk.
    private func reduceBlock(outer: Int, span: Int, inner c: Int) {
        for n in 0..<outer {
            let out = output + n * c
            var p = input + n * span * c
            if c == 1 {
                // One run to one value (the gesture embedder's landmark extents): in a register, the same order.
                var acc = out[0]
                switch function {
                case .mean, .sum: for i in 0..<span { acc += p[i] }
                case .max: for i in 0..<span where p[i] > acc { acc = p[i] }
                case .min: for i in 0..<span where p[i] < acc { acc = p[i] }
                }
                out[0] = acc
                continue
            }
            for _ in 0..<span {
                var ch = 0
                while ch &+ 8 <= c {
                    let v = load8(p + ch), o = load8(out + ch)
                    switch function {
                    case .mean, .sum: store8(o + v, out + ch)
                    case .max: store8(maxLanes(v, o), out + ch)
                    case .min: store8(minLanes(v, o), out + ch)
                    }
                    ch &+= 8
                }
                while ch < c {
                    let v = p[ch]
                    switch function {
                    case .mean, .sum: out[ch] += v
                    case .max: if v > out[ch] { out[ch] = v }
                    case .min: if v < out[ch] { out[ch] = v }
                    }
                    ch &+= 1
                }
                p += c
            }
        }
    }

    /// Any set of axes: one pass in input order with an odometer over the indices.
    private func reduceAnyAxes(count: Int) {
        let rank = inShape.count
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * max(rank, 1)) { scratch in
            // Output strides along kept axes (0 along reduced ones), then the index odometer.
            var s = 1
            for d in stride(from: rank - 1, through: 0, by: -1) {
                scratch[d] = reduced[d] ? 0 : s; if !reduced[d] { s *= inShape[d] }
            }
            for d in 0..<rank { scratch[rank + d] = 0 }
            var o = 0
            for i in 0..<count {
                let v = input[i]
                switch function {
                case .mean, .sum: output[o] += v
                case .max: if v > output[o] { output[o] = v }
                case .min: if v < output[o] { output[o] = v }
                }
                var d = rank - 1
                while d >= 0 {
                    scratch[rank + d] += 1
                    o += scratch[d]
                    if scratch[rank + d] < inShape[d] { break }
                    o -= scratch[d] * inShape[d]
                    scratch[rank + d] = 0
                    d -= 1
                }
            }
        }
    }
}
