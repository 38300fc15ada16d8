/// MEAN, REDUCE_MAX, REDUCE_MIN over any set of axes. The output layout is the
/// same with or without `keep_dims`, so only the reduced axes matter here.
final class ReduceLayer: Layer {
    enum Function { case mean, max, min }
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

    init(kind: String, function: Function, input: UnsafePointer<Float>, inShape: [Int], axes: Set<Int>,
         output: UnsafeMutablePointer<Float>) {
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
    }

    func run(_ context: RunContext) {
        let initial: Float = function == .max ? -.infinity : (function == .min ? .infinity : 0)
        output.initialize(repeating: initial, count: outCount)
        let count = inShape.reduce(1, *)
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
                case .mean: for i in 0..<span { acc += p[i] }
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
                    case .mean: store8(o + v, out + ch)
                    case .max: store8(maxLanes(v, o), out + ch)
                    case .min: store8(minLanes(v, o), out + ch)
                    }
                    ch &+= 8
                }
                while ch < c {
                    let v = p[ch]
                    switch function {
                    case .mean: out[ch] += v
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
                case .mean: output[o] += v
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
