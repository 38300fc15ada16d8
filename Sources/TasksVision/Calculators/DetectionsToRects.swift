#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MediaPipe's `NormalizeRadians`, computed in double as the C++ does (float angle, double pi).
@inline(__always)
public func normalizeRadians(_ angle: Float) -> Float {
    Float(Double(angle) - 2 * Double.pi * floor((Double(angle) - (-Double.pi)) / (2 * Double.pi)))
}

/// MediaPipe's `DetectionsToRectsCalculator` for normalized rects: the detection's box
/// becomes the rect, rotated so the vector from one keypoint to another points at a target angle.
public enum DetectionsToRects {
    public static func rect(_ d: RawDetection, imageWidth: Int, imageHeight: Int, startKeypoint: Int, endKeypoint: Int,
                            targetAngle: Float) -> NormalizedRect {
        let b = d.box
        var r = NormalizedRect(xCenter: b.xmin + b.width / 2, yCenter: b.ymin + b.height / 2, width: b.width,
                               height: b.height)
        guard startKeypoint < d.keypoints.count, endKeypoint < d.keypoints.count else { return r }
        let x0 = d.keypoints[startKeypoint].x * Float(imageWidth),
            y0 = d.keypoints[startKeypoint].y * Float(imageHeight)
        let x1 = d.keypoints[endKeypoint].x * Float(imageWidth), y1 = d.keypoints[endKeypoint].y * Float(imageHeight)
        r.rotation = normalizeRadians(targetAngle - FloatMath.atan2(-(y1 - y0), x1 - x0))
        return r
    }

    /// The calculator's `USE_KEYPOINTS` conversion: the rect around every keypoint (not the detection's box),
    /// rotated as `rect`. MediaPipe needs two keypoints at least; nil with fewer.
    public static func keypointsRect(_ d: RawDetection, imageWidth: Int, imageHeight: Int, startKeypoint: Int,
                                     endKeypoint: Int, targetAngle: Float) -> NormalizedRect? {
        guard d.keypoints.count > 1 else { return nil }
        // NormRectFromKeyPoints starts from the largest float and its negative (`lowest`).
        var xmin = Float.greatestFiniteMagnitude, ymin = Float.greatestFiniteMagnitude
        var xmax = -Float.greatestFiniteMagnitude, ymax = -Float.greatestFiniteMagnitude
        for k in d.keypoints {
            xmin = min(xmin, k.x); ymin = min(ymin, k.y); xmax = max(xmax, k.x); ymax = max(ymax, k.y)
        }
        var boxed = d
        boxed.box = RelativeBox(xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin)
        var r = rect(boxed, imageWidth: imageWidth, imageHeight: imageHeight, startKeypoint: startKeypoint,
                     endKeypoint: endKeypoint, targetAngle: targetAngle)
        r.xCenter = (xmin + xmax) / 2
        r.yCenter = (ymin + ymax) / 2
        return r
    }
}

/// MediaPipe's `RectTransformationCalculator` on normalized rects: shift in the rect's
/// rotated frame, optionally square on the long side (in pixels), then scale.
public struct RectTransformation: Sendable, Equatable {
    public var scaleX: Float = 1, scaleY: Float = 1
    public var shiftX: Float = 0, shiftY: Float = 0
    public var squareLong = false

    public init(scaleX: Float = 1, scaleY: Float = 1, shiftX: Float = 0, shiftY: Float = 0, squareLong: Bool = false) {
        self.scaleX = scaleX; self.scaleY = scaleY; self.shiftX = shiftX; self.shiftY = shiftY;
        self.squareLong = squareLong
    }

    /// Palm to hand (hand_detector_graph.cc).
    public static let palmToHand = RectTransformation(scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)
    /// Landmarks to next-frame hand (hand_landmarks_detector_graph.cc).
    public static let handNextFrame = RectTransformation(scaleX: 2.0, scaleY: 2.0, shiftY: -0.1, squareLong: true)

    public func apply(_ input: NormalizedRect, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var r = input
        var width = r.width, height = r.height
        let rotation = r.rotation
        let w = Float(imageWidth), h = Float(imageHeight)
        if rotation == 0 {
            r.xCenter += width * shiftX
            r.yCenter += height * shiftY
        } else {
            let xShift = (w * width * shiftX * FloatMath.cos(rotation)
                          - h * height * shiftY * FloatMath.sin(rotation)) / w
            let yShift = (w * width * shiftX * FloatMath.sin(rotation)
                          + h * height * shiftY * FloatMath.cos(rotation)) / h
            r.xCenter += xShift
            r.yCenter += yShift
        }
        if squareLong {
            let longSide = max(width * w, height * h)
            width = longSide / w
            height = longSide / h
        }
        r.width = width * scaleX
        r.height = height * scaleY
        return r
    }
}
