#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MediaPipe's `LandmarksToMatrixCalculator` as the gesture recognizer configures it:
/// aspect-ratio normalization (image landmarks only), rotation by minus the input
/// image's rotation about (0.5, 0.5), then normalization to the wrist with the larger of
/// the x and y ranges. The result is laid out [x0, y0, z0, x1, ...] for the embedder.
public enum LandmarksToMatrix {
    public static func features(_ points: [SIMD3<Float>], imageWidth: Int?, imageHeight: Int?,
                                rotation: Float) -> [Float] {
        var p = points
        if let w = imageWidth, let h = imageHeight {
            let maxDim = Float(max(w, h))
            let sx = Float(w) / maxDim, sy = Float(h) / maxDim
            p = p.map {
                SIMD3(Float((Double($0.x) - 0.5) * Double(sx) + 0.5), Float((Double($0.y) - 0.5) * Double(sy) + 0.5),
                      $0.z)
            }
        }
        let c = FloatMath.cos(rotation), s = FloatMath.sin(-rotation)
        p = p.map { q in
            let x = Float(Double(q.x) - 0.5), y = Float(Double(q.y) - 0.5)
            return SIMD3(x * c - y * s + 0.5, y * c + x * s + 0.5, q.z)
        }
        let origin = p[0]
        var minX = Float.greatestFiniteMagnitude, maxX = Float.leastNormalMagnitude
        var minY = Float.greatestFiniteMagnitude, maxY = Float.leastNormalMagnitude
        p = p.map { q in
            let n = q - origin
            minX = min(minX, n.x); maxX = max(maxX, n.x); minY = min(minY, n.y); maxY = max(maxY, n.y)
            return n
        }
        let scale = max(maxX - minX, maxY - minY) + 1e-5
        return p.flatMap { [$0.x / scale, $0.y / scale, $0.z / scale] }
    }
}
