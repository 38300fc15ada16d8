/// STRIDED_SLICE with constant begin/end/strides, begin/end/shrink masks and the
/// `offset` option, following TFLite's `StartForAxis`/`StopForAxis` clamping.
final class StridedSliceLayer: Layer {
    let kind = "STRIDED_SLICE"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let inShape: [Int]
    let starts: [Int], stops: [Int], strides: [Int]

    init(input: UnsafePointer<Float>, inShape: [Int], output: UnsafeMutablePointer<Float>, starts: [Int], stops: [Int],
         strides: [Int]) {
        self.input = input
        self.output = output
        self.inShape = inShape
        self.starts = starts; self.stops = stops; self.strides = strides
    }

    /// Resolves begin/end per axis; returns nil when the slice is invalid.
    static func resolve(shape: [Int], begin: [Int], end: [Int], strides: [Int], beginMask: Int, endMask: Int,
                        shrinkMask: Int,
                        offset: Bool) -> (starts: [Int], stops: [Int], strides: [Int], outShape: [Int])? {
        let rank = shape.count
        guard begin.count <= rank, end.count == begin.count, strides.count == begin.count else { return nil }
        var starts: [Int] = [], stops: [Int] = [], steps: [Int] = [], outShape: [Int] = []
        for axis in 0..<rank {
            let size = shape[axis]
            guard axis < begin.count else {
                starts.append(0); stops.append(size); steps.append(1); outShape.append(size); continue
            }
            let step = strides[axis]
            guard step != 0 else { return nil }
            let shrink = (shrinkMask >> axis) & 1 == 1
            var start = begin[axis]
            if (beginMask >> axis) & 1 == 1 && !shrink { start = step > 0 ? 0 : size - 1 } else {
                if start < 0 { start += size }
                start = step > 0 ? min(max(start, 0), size) : min(max(start, -1), size - 1)
            }
            var stop: Int
            if shrink {
                stop = start + 1
                guard start >= 0 && start < size else { return nil }
            } else if (endMask >> axis) & 1 == 1 {
                stop = step > 0 ? size : -1
            } else {
                stop = offset ? begin[axis] + end[axis] : end[axis]
                if stop < 0 { stop += size }
                stop = step > 0 ? min(max(stop, 0), size) : min(max(stop, -1), size - 1)
            }
            let n = step > 0 ? max(0, (stop - start + step - 1) / step) : max(0, (start - stop - step - 1) / (-step))
            starts.append(start); stops.append(stop); steps.append(shrink ? 1 : step)
            if !shrink { outShape.append(n) }
        }
        return (starts, stops, steps, outShape)
    }

    func run(_ context: RunContext) {
        let rank = inShape.count
        var inStrides = [Int](repeating: 1, count: rank)
        if rank > 1 {
            for i in stride(from: rank - 2, through: 0, by: -1) { inStrides[i] = inStrides[i + 1] * inShape[i + 1] }
        }
        var o = 0
        func walk(_ axis: Int, _ base: Int) {
            if axis == rank { output[o] = input[base]; o += 1; return }
            var i = starts[axis]
            let step = strides[axis]
            while step > 0 ? i < stops[axis] : i > stops[axis] {
                walk(axis + 1, base + i * inStrides[axis])
                i += step
            }
        }
        walk(0, 0)
    }
}
