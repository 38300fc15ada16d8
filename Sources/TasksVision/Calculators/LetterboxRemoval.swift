/// MediaPipe's letterbox removal (`DetectionLetterboxRemovalCalculator`,
/// `LandmarkLetterboxRemovalCalculator`): maps normalized coordinates of a padded
/// tensor back to the unpadded image, `(x - left) / (1 - (left + right))`.
public struct LetterboxPadding: Sendable, Equatable {
    public var left: Float, top: Float, right: Float, bottom: Float
    public init(left: Float, top: Float, right: Float, bottom: Float) {
        self.left = left; self.top = top; self.right = right; self.bottom = bottom
    }
}

public enum LetterboxRemoval {
    public static func point(_ p: SIMD2<Float>, _ pad: LetterboxPadding) -> SIMD2<Float> {
        SIMD2((p.x - pad.left) / (1 - (pad.left + pad.right)), (p.y - pad.top) / (1 - (pad.top + pad.bottom)))
    }

    public static func detection(_ d: RawDetection, _ pad: LetterboxPadding) -> RawDetection {
        var out = d
        let sx = 1 - (pad.left + pad.right), sy = 1 - (pad.top + pad.bottom)
        out.box = RelativeBox(xmin: (d.box.xmin - pad.left) / sx, ymin: (d.box.ymin - pad.top) / sy,
                              width: d.box.width / sx, height: d.box.height / sy)
        out.keypoints = d.keypoints.map { point($0, pad) }
        return out
    }
}
