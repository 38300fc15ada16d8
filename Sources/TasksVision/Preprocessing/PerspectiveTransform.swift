#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The 3x3 transforms MediaPipe's CPU image-to-tensor path builds with OpenCV,
/// computed the same way: `cv::boxPoints` in float, `cv::getPerspectiveTransform`
/// as an 8x8 LU solve in double, and the 3x3 inverse `warpPerspective` takes.
enum PerspectiveTransform {
    /// Corners of a rotated rectangle in OpenCV's order (bottom-left, top-left, top-right, bottom-right for angle 0).
    static func boxPoints(_ r: RotatedRect) -> [(Float, Float)] {
        // MediaPipe: `roi.rotation * 180.f / M_PI` (float product, double quotient) into
        // `cv::RotatedRect`'s float angle; `points()` goes back to radians in double.
        let angleDegrees = Float(Double(r.rotation * 180) / Double.pi)
        let angle = Double(angleDegrees) * Double.pi / 180
        let b = Float(cos(angle)) * 0.5
        let a = Float(sin(angle)) * 0.5
        let p0 = (r.centerX - a * r.height - b * r.width, r.centerY + b * r.height - a * r.width)
        let p1 = (r.centerX + a * r.height - b * r.width, r.centerY - b * r.height - a * r.width)
        // OpenCV 5 computes the other two corners directly, not as reflections of the first two.
        let p2 = (r.centerX + a * r.height + b * r.width, r.centerY - b * r.height + a * r.width)
        let p3 = (r.centerX - a * r.height + b * r.width, r.centerY + b * r.height + a * r.width)
        return [p0, p1, p2, p3]
    }

    /// The perspective transform taking `src` to `dst` (row-major 3x3, last element 1), or nil if singular.
    static func perspective(from src: [(Float, Float)], to dst: [(Float, Float)]) -> [Double]? {
        var a = [Double](repeating: 0, count: 64), b = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            let (fsx, fsy) = src[i], (fdx, fdy) = dst[i]
            let sx = Double(fsx), sy = Double(fsy)
            a[i * 8 + 0] = sx; a[(i + 4) * 8 + 3] = sx
            a[i * 8 + 1] = sy; a[(i + 4) * 8 + 4] = sy
            a[i * 8 + 2] = 1; a[(i + 4) * 8 + 5] = 1
            // OpenCV multiplies the float coordinates in float before storing them as double.
            a[i * 8 + 6] = Double(-fsx * fdx); a[i * 8 + 7] = Double(-fsy * fdx)
            a[(i + 4) * 8 + 6] = Double(-fsx * fdy); a[(i + 4) * 8 + 7] = Double(-fsy * fdy)
            b[i] = Double(fdx); b[i + 4] = Double(fdy)
        }
        guard luSolve(&a, &b, 8) else { return nil }
        return b + [1]
    }

    /// Gaussian elimination with partial pivoting, as OpenCV's `LUImpl`.
    static func luSolve(_ a: inout [Double], _ b: inout [Double], _ m: Int) -> Bool {
        for i in 0..<m {
            var k = i
            for j in (i + 1)..<max(m, i + 1) where abs(a[j * m + i]) > abs(a[k * m + i]) { k = j }
            if abs(a[k * m + i]) < Double.ulpOfOne * 10 { return false }
            if k != i {
                for j in i..<m { a.swapAt(i * m + j, k * m + j) }
                b.swapAt(i, k)
            }
            let d = -1 / a[i * m + i]
            for j in (i + 1)..<max(m, i + 1) {
                let alpha = a[j * m + i] * d
                for kk in (i + 1)..<m { a[j * m + kk] += alpha * a[i * m + kk] }
                b[j] += alpha * b[i]
            }
        }
        for i in stride(from: m - 1, through: 0, by: -1) {
            var s = b[i]
            for k in (i + 1)..<max(m, i + 1) { s -= a[i * m + k] * b[k] }
            b[i] = s / a[i * m + i]
        }
        return true
    }

    /// 3x3 inverse by cofactors, as OpenCV's `invert` does for small matrices.
    static func invert3x3(_ s: [Double]) -> [Double]? {
        func m(_ r: Int, _ c: Int) -> Double { s[r * 3 + c] }
        let det = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
            + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0))
        guard det != 0 else { return nil }
        let d = 1 / det
        return [
            (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) * d, (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * d,
            (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * d,
            (m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2)) * d, (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * d,
            (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * d,
            (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)) * d, (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * d,
            (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * d,
        ]
    }
}
