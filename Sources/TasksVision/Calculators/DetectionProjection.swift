import Foundation
/// MediaPipe's `DetectionProjectionCalculator`: maps detections from normalized
/// tensor coordinates to normalized image coordinates with the image-to-tensor
/// matrix; a box becomes the bounding box of its four projected corners.
public enum DetectionProjection {
    public static func project(_ d: RawDetection, matrix m: [Float]) -> RawDetection {
        func p(_ x: Float, _ y: Float) -> SIMD2<Float> {
            SIMD2(x * m[0] + y * m[1] + m[3], x * m[4] + y * m[5] + m[7])
        }
        var out = d
        out.keypoints = d.keypoints.map { p($0.x, $0.y) }
        let b = d.box
        let corners = [p(b.xmin, b.ymin), p(b.xmin + b.width, b.ymin), p(b.xmin + b.width, b.ymin + b.height),
                       p(b.xmin, b.ymin + b.height)]
        var lo = SIMD2<Float>(.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        var hi = SIMD2<Float>(-.greatestFiniteMagnitude, -.greatestFiniteMagnitude)
        for c in corners {
            lo.x = min(lo.x, c.x); lo.y = min(lo.y, c.y)
            hi.x = max(hi.x, c.x); hi.y = max(hi.y, c.y)
        }
        out.box = RelativeBox(xmin: lo.x, ymin: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
        return out
    }
}

/// MediaPipe's `DetectionTransformationCalculator` for relative to pixel boxes:
/// each value is truncated to an integer and bounded to [0, size].
public enum DetectionTransformation {
    @inline(__always)
    static func bounded(_ v: Float, _ upper: Int) -> Int {
        guard v.isFinite else { return 0 }
        let t = Int(max(min(v, Float(Int32.max)), Float(Int32.min)))  // C++ float-to-int truncation
        let o = min(t, upper)
        return o < 0 ? 0 : o
    }

    public static func pixelBox(_ b: RelativeBox, width: Int, height: Int) -> CGRect {
        CGRect(x: bounded(b.xmin * Float(width), width), y: bounded(b.ymin * Float(height), height),
               width: bounded(b.width * Float(width), width), height: bounded(b.height * Float(height), height))
    }

    /// A detection in normalized stored-pixel coordinates as the displayed image shows it, in its
    /// pixels: the box and keypoints turned with the image's orientation, then `pixelBox`.
    static func displayDetection(_ d: RawDetection, image: MPImage) -> Detection {
        let o = image.orientation
        let b = d.box
        let corners = [(b.xmin, b.ymin), (b.xmin + b.width, b.ymin + b.height)].map {
            o.displayPoint(fromStored: (x: $0.0, y: $0.1))
        }
        let xmin = min(corners[0].x, corners[1].x), ymin = min(corners[0].y, corners[1].y)
        let box = RelativeBox(xmin: xmin, ymin: ymin, width: max(corners[0].x, corners[1].x) - xmin,
                              height: max(corners[0].y, corners[1].y) - ymin)
        let displayBox = o == .up ? b : box
        let keypoints = d.keypoints.map { k -> NormalizedKeypoint in
            let p = o.displayPoint(fromStored: (x: k.x, y: k.y))
            return NormalizedKeypoint(x: p.x, y: p.y)
        }
        return Detection(categories: [ResultCategory(index: d.classId, score: d.score)],
                         boundingBox: DetectionTransformation.pixelBox(displayBox, width: image.width,
                                                                       height: image.height),
                         keypoints: keypoints)
    }
}
