/// MediaPipe's `SsdAnchorsCalculator` (calculators/tflite/ssd_anchors_calculator.cc),
/// for the fixed-size anchors every MediaPipe detector uses.
public struct SsdAnchorOptions: Sendable, Equatable {
    public var numLayers: Int
    public var minScale: Float
    public var maxScale: Float
    public var inputWidth: Int
    public var inputHeight: Int
    public var anchorOffsetX: Float = 0.5
    public var anchorOffsetY: Float = 0.5
    public var strides: [Int]
    public var aspectRatios: [Float] = [1.0]
    public var interpolatedScaleAspectRatio: Float = 1.0
    public var fixedAnchorSize = true

    /// BlazeFace short range: 128x128, 896 anchors.
    public static let faceShortRange = SsdAnchorOptions(numLayers: 4, minScale: 0.1484375, maxScale: 0.75,
                                                        inputWidth: 128, inputHeight: 128, strides: [8, 16, 16, 16])
    /// BlazeFace full range: 192x192, 2304 anchors, one per cell.
    public static let faceFullRange = SsdAnchorOptions(numLayers: 1, minScale: 0.1484375, maxScale: 0.75,
                                                       inputWidth: 192, inputHeight: 192, strides: [4],
                                                       interpolatedScaleAspectRatio: 0)
    /// Palm detection: 192x192, 2016 anchors.
    public static let palm = SsdAnchorOptions(numLayers: 4, minScale: 0.1484375, maxScale: 0.75, inputWidth: 192,
                                              inputHeight: 192, strides: [8, 16, 16, 16])
    /// BlazePose detector: 224x224, 2254 anchors.
    public static let pose = SsdAnchorOptions(numLayers: 5, minScale: 0.1484375, maxScale: 0.75, inputWidth: 224,
                                              inputHeight: 224, strides: [8, 16, 32, 32, 32])
}

/// An anchor: center and size in normalized input coordinates.
public struct Anchor: Sendable, Equatable {
    public var xCenter: Float, yCenter: Float, width: Float, height: Float
}

public enum SsdAnchors {
    static func scale(_ minScale: Float, _ maxScale: Float, _ index: Int, _ count: Int) -> Float {
        count == 1
            ? (minScale + maxScale) * 0.5
            : Float(Double(minScale) + Double(maxScale - minScale) * 1.0 * Double(index) / Double(Float(count) - 1))
    }

    public static func generate(_ o: SsdAnchorOptions) -> [Anchor] {
        var anchors: [Anchor] = []
        var layer = 0
        while layer < o.numLayers {
            var heights: [Float] = [], widths: [Float] = []
            var ratios: [Float] = [], scales: [Float] = []
            var last = layer
            while last < o.strides.count && o.strides[last] == o.strides[layer] {
                let s = scale(o.minScale, o.maxScale, last, o.strides.count)
                for r in o.aspectRatios { ratios.append(r); scales.append(s) }
                if o.interpolatedScaleAspectRatio > 0 {
                    let next: Float = last == o.strides.count - 1
                        ? 1 : scale(o.minScale, o.maxScale, last + 1, o.strides.count)
                    scales.append((s * next).squareRoot())
                    ratios.append(o.interpolatedScaleAspectRatio)
                }
                last += 1
            }
            for (r, s) in zip(ratios, scales) {
                let root = r.squareRoot()
                heights.append(s / root)
                widths.append(s * root)
            }
            let stride = o.strides[layer]
            let fmH = Int((1.0 * Float(o.inputHeight) / Float(stride)).rounded(.up))
            let fmW = Int((1.0 * Float(o.inputWidth) / Float(stride)).rounded(.up))
            for y in 0..<fmH {
                for x in 0..<fmW {
                    for i in 0..<heights.count {
                        let xc = (Float(x) + o.anchorOffsetX) * 1.0 / Float(fmW)
                        let yc = (Float(y) + o.anchorOffsetY) * 1.0 / Float(fmH)
                        anchors.append(Anchor(xCenter: xc, yCenter: yc, width: o.fixedAnchorSize ? 1 : widths[i],
                                              height: o.fixedAnchorSize ? 1 : heights[i]))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}
