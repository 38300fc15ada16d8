#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MediaPipe's `TensorsToLandmarksCalculator` (normalized output): pixel coordinates
/// of the model input divided by its size; z divided by width and `normalizeZ`.
public enum TensorsToLandmarks {
    public static func normalized(_ raw: UnsafeBufferPointer<Float>, count: Int, dimensions: Int, inputWidth: Int,
                                  inputHeight: Int,
                                  normalizeZ: Float = 1,
                                  visibilityPresenceSigmoid: Bool = false) -> [NormalizedLandmark] {
        (0..<count).map { i in
            let o = i * dimensions
            var lm = NormalizedLandmark(x: raw[o] / Float(inputWidth), y: raw[o + 1] / Float(inputHeight),
                                        z: dimensions > 2 ? raw[o + 2] / Float(inputWidth) / normalizeZ : 0)
            if dimensions > 3 { lm.visibility = visibilityPresenceSigmoid ? sigmoid(raw[o + 3]) : raw[o + 3] }
            if dimensions > 4 { lm.presence = visibilityPresenceSigmoid ? sigmoid(raw[o + 4]) : raw[o + 4] }
            return lm
        }
    }

    public static func world(_ raw: UnsafeBufferPointer<Float>, count: Int, dimensions: Int = 3) -> [Landmark] {
        (0..<count).map { i in
            Landmark(x: raw[i * dimensions], y: raw[i * dimensions + 1], z: raw[i * dimensions + 2])
        }
    }

    @inline(__always) public static func sigmoid(_ x: Float) -> Float { 1 / (1 + FloatMath.exp(-x)) }
}

/// MediaPipe's `LandmarkProjectionCalculator` given only a NORM_RECT: rotate about the
/// crop centre, scale by the rect's normalized size, move to its centre; z scales with width.
public enum LandmarkProjection {
    public static func project(_ lms: [NormalizedLandmark], rect: NormalizedRect) -> [NormalizedLandmark] {
        let c = FloatMath.cos(rect.rotation), s = FloatMath.sin(rect.rotation)
        return lms.map { lm in
            let x = lm.x - 0.5, y = lm.y - 0.5
            var out = lm
            out.x = (c * x - s * y) * rect.width + rect.xCenter
            out.y = (s * x + c * y) * rect.height + rect.yCenter
            out.z = lm.z * rect.width
            return out
        }
    }

    /// `WorldLandmarkProjectionCalculator`: rotation only.
    public static func projectWorld(_ lms: [Landmark], rect: NormalizedRect) -> [Landmark] {
        let c = FloatMath.cos(rect.rotation), s = FloatMath.sin(rect.rotation)
        return lms.map { lm in
            var out = lm
            out.x = c * lm.x - s * lm.y
            out.y = s * lm.x + c * lm.y
            return out
        }
    }
}

/// MediaPipe's `HandLandmarksToRectCalculator`: a rect around the hand, rotated so the
/// wrist to middle-of-fingers direction points up; bounds taken in that rotated frame.
/// It works on 12 of the 21 landmarks (wrist, thumb base, and the two lower joints of
/// each finger; no fingertips), and its "PIP" indices 4, 6, 8 refer to that subset
/// (the index, middle and ring finger MCP joints).
public enum HandLandmarksToRect {
    static let partialIndices = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    public static func rect(_ all: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let lms = all.count == 21 ? partialIndices.map { all[$0] } : all
        let w = Float(imageWidth), h = Float(imageHeight)
        let x0 = lms[0].x * w, y0 = lms[0].y * h
        var x1 = (lms[4].x + lms[8].x) / 2, y1 = (lms[4].y + lms[8].y) / 2
        x1 = (x1 + lms[6].x) / 2 * w
        y1 = (y1 + lms[6].y) / 2 * h
        let rotation = normalizeRadians(Float(Double.pi * 0.5) - FloatMath.atan2(-(y1 - y0), x1 - x0))
        let reverse = normalizeRadians(-rotation)
        // MediaPipe starts its maxima at numeric_limits<float>::min() (the smallest positive float).
        var maxX = Float.leastNormalMagnitude, maxY = Float.leastNormalMagnitude
        var minX = Float.greatestFiniteMagnitude, minY = Float.greatestFiniteMagnitude
        for lm in lms { maxX = max(maxX, lm.x); maxY = max(maxY, lm.y); minX = min(minX, lm.x); minY = min(minY, lm.y) }
        let cx = (maxX + minX) / 2, cy = (maxY + minY) / 2
        maxX = .leastNormalMagnitude; maxY = .leastNormalMagnitude; minX = .greatestFiniteMagnitude;
        minY = .greatestFiniteMagnitude
        let cr = FloatMath.cos(reverse), sr = FloatMath.sin(reverse)
        for lm in lms {
            let ox = (lm.x - cx) * w, oy = (lm.y - cy) * h
            let px = ox * cr - oy * sr, py = ox * sr + oy * cr
            maxX = max(maxX, px); maxY = max(maxY, py); minX = min(minX, px); minY = min(minY, py)
        }
        let pcx = (maxX + minX) / 2, pcy = (maxY + minY) / 2
        let centerX = pcx * FloatMath.cos(rotation) - pcy * FloatMath.sin(rotation) + w * cx
        let centerY = pcx * FloatMath.sin(rotation) + pcy * FloatMath.cos(rotation) + h * cy
        return NormalizedRect(xCenter: centerX / w, yCenter: centerY / h, width: (maxX - minX) / w,
                              height: (maxY - minY) / h, rotation: rotation)
    }
}
