/// MediaPipe Tasks' `TensorsToSegmentationCalculator` on the CPU
/// (mediapipe/tasks/cc/vision/image_segmenter/calculators/tensors_to_segmentation_calculator.cc), the
/// image segmenter's: an HWC float tensor into confidence masks (one per channel) and a category mask, both
/// of the output size (the input image's). It is not the legacy calculator the pose graph uses
/// (`TensorsToSegmentation`).
///
/// The two masks are made differently, as MediaPipe makes them:
/// - a confidence mask is the activation of each tensor value at the tensor's size, then `cv::resize`
///   (`INTER_LINEAR`, half-pixel centres) to the output size (`MaskResize`);
/// - the category mask samples the raw tensor at each output pixel with corner-aligned positions
///   (`(in - 1) / (out - 1)` per pixel), interpolates bilinearly, then applies the activation; of one
///   channel it is 0 (the category) where that value is above 0.5 and 255 elsewhere, of several the index
///   of the largest. So a one-channel model's category mask is not the confidence mask thresholded at 0.5:
///   the two interpolate at other positions, and one before the sigmoid, the other after it.
enum SegmenterTensorsToMasks {
    /// `SegmenterOptions.Activation`, from the model's `SEGMENTER_METADATA` (NONE without it).
    enum Activation: UInt8, Equatable {
        case none = 0, sigmoid = 1, softmax = 2
    }

    /// An image-like tensor's size (`GetImageLikeTensorShape`).
    struct Shape: Equatable {
        var height: Int, width: Int, channels: Int

        /// `[H, W]`, `[H, W, C]` or `[N, H, W, C]` (N ignored, as MediaPipe ignores it); nil otherwise.
        init?(dimensions d: [Int]) {
            switch d.count {
            case 2: (height, width, channels) = (d[0], d[1], 1)
            case 3: (height, width, channels) = (d[0], d[1], d[2])
            case 4: (height, width, channels) = (d[1], d[2], d[3])
            default: return nil
            }
            guard height > 0, width > 0, channels > 0 else { return nil }
        }

        var count: Int { height * width * channels }
    }

    /// The value of the category mask where no category is (`kUnLabeledPixelValue`), and a
    /// one-channel model's background.
    static let unlabeled: UInt8 = 255

    /// The activation named by an `ImageSegmenterOptions` flatbuffer (the `SEGMENTER_METADATA` custom
    /// metadata); nil when the data is not one or names an unknown activation.
    static func activation(segmenterMetadata data: [UInt8]) -> Activation? {
        guard data.count >= 8 else { return nil }
        // Field 0 of the root table, a byte; absent means NONE.
        func u32(_ p: Int) -> Int? {
            guard p >= 0, p + 4 <= data.count else { return nil }
            return Int(data[p]) | Int(data[p + 1]) << 8 | Int(data[p + 2]) << 16 | Int(data[p + 3]) << 24
        }
        func u16(_ p: Int) -> Int? { p >= 0 && p + 2 <= data.count ? Int(data[p]) | Int(data[p + 1]) << 8 : nil }
        guard let root = u32(0), let soffset = u32(root) else { return nil }
        let vtable = root - Int(Int32(truncatingIfNeeded: soffset))
        guard let vtableSize = u16(vtable) else { return nil }
        guard vtableSize >= 6, let field = u16(vtable + 4), field != 0 else { return Activation.none }
        guard root + field < data.count else { return nil }
        return Activation(rawValue: data[root + field])
    }

    /// `Sigmoid` of the tasks calculator: `1. / (1 + std::exp(-value))`, the sum in float.
    @inline(__always) static func sigmoid(_ v: Float) -> Float { FloatMath.sigmoid(v) }

    /// `StableSoftmax` over one pixel's channels: exponentials of the values less their maximum, summed
    /// in channel order, each divided by the sum.
    static func softmax(_ values: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        var maximum = values[0]
        for v in values where v > maximum { maximum = v }
        var denominator: Float = 0
        for i in values.indices {
            let e = FloatMath.exp(values[i] - maximum)
            denominator += e
            out[i] = e
        }
        for i in values.indices { out[i] /= denominator }
    }

    /// `ProcessForConfidenceMaskCpu`: per channel, a mask of `outputWidth` x `outputHeight` floats.
    static func confidenceMasks(_ tensor: UnsafeBufferPointer<Float>, shape: Shape, activation: Activation,
                                outputWidth: Int, outputHeight: Int) -> [[Float]] {
        let pixels = shape.width * shape.height, c = shape.channels
        guard tensor.count >= shape.count, let t = tensor.baseAddress else { return [] }
        // The activated channels at the tensor's size, one plane after another.
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: pixels * c)
        defer { planes.deallocate() }
        if c == 1 && activation != .softmax {
            for i in 0..<pixels { planes[i] = activation == .sigmoid ? sigmoid(t[i]) : t[i] }
        } else {
            let activated = UnsafeMutablePointer<Float>.allocate(capacity: c)
            defer { activated.deallocate() }
            for i in 0..<pixels {
                let values = UnsafeBufferPointer(start: t + i * c, count: c)
                switch activation {
                case .none: for j in 0..<c { activated[j] = values[j] }
                case .sigmoid: for j in 0..<c { activated[j] = sigmoid(values[j]) }
                case .softmax: softmax(values, into: UnsafeMutableBufferPointer(start: activated, count: c))
                }
                for j in 0..<c { planes[j * pixels + i] = activated[j] }
            }
        }
        let plane = { (j: Int) in UnsafeBufferPointer(start: planes + j * pixels, count: pixels) }
        guard outputWidth != shape.width || outputHeight != shape.height else { return (0..<c).map { Array(plane($0)) } }
        let plan = MaskResize.Plan(width: shape.width, height: shape.height, outputWidth: outputWidth,
                                   outputHeight: outputHeight)
        return (0..<c).map { plan.resize(plane($0)) }
    }

    /// `ProcessForCategoryMaskCpu`: `outputWidth` x `outputHeight` bytes.
    static func categoryMask(_ tensor: UnsafeBufferPointer<Float>, shape: Shape, activation: Activation,
                             outputWidth: Int, outputHeight: Int) -> [UInt8] {
        var mask = [UInt8](repeating: unlabeled, count: max(0, outputWidth) * max(0, outputHeight))
        guard tensor.count >= shape.count, outputWidth > 0, outputHeight > 0, let t = tensor.baseAddress else {
            return mask
        }
        let c = shape.channels, inW = shape.width, inH = shape.height
        // Float quotients as MediaPipe writes them; an output of one row or column (a division by zero
        // there) samples the first row or column.
        let widthScale = outputWidth > 1 ? Float(inW - 1) / Float(outputWidth - 1) : 0
        let heightScale = outputHeight > 1 ? Float(inH - 1) / Float(outputHeight - 1) : 0
        let maxX = Float(inW - 1), maxY = Float(inH - 1)
        // Per column: x0, x1 and t1 (they depend on the column only).
        let columns = (0..<outputWidth).map { x -> (Int, Int, Float) in
            let p = Float(x) * widthScale
            let x0 = Int(max(p.rounded(.down), 0)), x1 = Int(min(p.rounded(.up), maxX))
            return (x0, x1, max(min(p - Float(x0), 1), 0))
        }
        if c == 1 {
            // One channel, the selfie models: the same arithmetic without the per-pixel vectors.
            let sig = activation == .sigmoid
            mask.withUnsafeMutableBufferPointer { m in
                for y in 0..<outputHeight {
                    let p = Float(y) * heightScale
                    let y0 = Int(max(p.rounded(.down), 0)), y1 = Int(min(p.rounded(.up), maxY))
                    let t0 = max(min(p - Float(y0), 1), 0)
                    let r0 = y0 * inW, r1 = y1 * inW
                    for x in 0..<outputWidth {
                        let (x0, x1, t1) = columns[x]
                        let left = lerp(t[r0 + x0], t[r1 + x0], t0)
                        var v = lerp(left, lerp(t[r0 + x1], t[r1 + x1], t0), t1)
                        if sig { v = sigmoid(v) }
                        m[y * outputWidth + x] = v > 0.5 ? 0 : unlabeled
                    }
                }
            }
            return mask
        }
        // BilinearInterpolate(v00, v10, v01, v11, t0, t1) is lerp(lerp(v00, v10, t0), lerp(v01, v11, t0), t1):
        // its two inner terms are the row's vertical interpolation at columns x0 and x1, computed once per
        // output row for every input column (the same floats), then one lerp per channel and pixel.
        let vertical = UnsafeMutablePointer<Float>.allocate(capacity: inW * c)
        let values = UnsafeMutablePointer<Float>.allocate(capacity: c)
        defer { vertical.deallocate(); values.deallocate() }
        let sig = activation == .sigmoid
        mask.withUnsafeMutableBufferPointer { m in
            for y in 0..<outputHeight {
                let p = Float(y) * heightScale
                let y0 = Int(max(p.rounded(.down), 0)), y1 = Int(min(p.rounded(.up), maxY))
                let t0 = max(min(p - Float(y0), 1), 0)
                let top = t + y0 * inW * c, bottom = t + y1 * inW * c
                for k in 0..<(inW * c) { vertical[k] = lerp(top[k], bottom[k], t0) }
                for x in 0..<outputWidth {
                    let (x0, x1, t1) = columns[x]
                    let a = vertical + x0 * c, b = vertical + x1 * c
                    for i in 0..<c { values[i] = lerp(a[i], b[i], t1) }
                    if sig { for i in 0..<c { values[i] = sigmoid(values[i]) } }
                    // std::max_element: the first of equal maxima.
                    var best = 0
                    for i in 1..<c where values[i] > values[best] { best = i }
                    m[y * outputWidth + x] = UInt8(truncatingIfNeeded: best)
                }
            }
        }
        return mask
    }

    /// `LinearInterpolate`: `v0 + (v1 - v0) * t`, in float.
    @inline(__always) static func lerp(_ v0: Float, _ v1: Float, _ t: Float) -> Float { v0 + (v1 - v0) * t }
}
