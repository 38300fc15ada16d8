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
        let angleDegrees = r.rotation * 180 / Float.pi
        let angle = Double(angleDegrees) * Double.pi / 180
        var b = Float(cos(angle)) * 0.5
        var a = Float(sin(angle)) * 0.5
        // Quarter turns (image orientations) use exact cos/sin. cos(-pi/2) is 6e-17, not 0, and that
        // noise decides the rounding of sample positions that fall exactly between two 1/32 steps;
        // MediaPipe's outputs for rotated inputs are reproduced better with exact values
        // (face scores within 0.005 instead of 0.007, hand landmarks 0.00001 instead of 0.00006).
        let rem = abs(angleDegrees.truncatingRemainder(dividingBy: 90))
        if rem < 1e-3 || rem > 90 - 1e-3 {
            b = Float(cos(angle)).rounded() * 0.5
            a = Float(sin(angle)).rounded() * 0.5
        }
        let p0 = (r.centerX - a * r.height - b * r.width, r.centerY + b * r.height - a * r.width)
        let p1 = (r.centerX + a * r.height - b * r.width, r.centerY - b * r.height - a * r.width)
        let p2 = (2 * r.centerX - p0.0, 2 * r.centerY - p0.1)
        let p3 = (2 * r.centerX - p1.0, 2 * r.centerY - p1.1)
        return [p0, p1, p2, p3]
    }

    /// The perspective transform taking `src` to `dst` (row-major 3x3, last element 1), or nil if singular.
    static func perspective(from src: [(Float, Float)], to dst: [(Float, Float)]) -> [Double]? {
        var a = [Double](repeating: 0, count: 64), b = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            let sx = Double(src[i].0), sy = Double(src[i].1), dx = Double(dst[i].0), dy = Double(dst[i].1)
            a[i * 8 + 0] = sx; a[(i + 4) * 8 + 3] = sx
            a[i * 8 + 1] = sy; a[(i + 4) * 8 + 4] = sy
            a[i * 8 + 2] = 1; a[(i + 4) * 8 + 5] = 1
            a[i * 8 + 6] = -sx * dx; a[i * 8 + 7] = -sy * dx
            a[(i + 4) * 8 + 6] = -sx * dy; a[(i + 4) * 8 + 7] = -sy * dy
            b[i] = dx; b[i + 4] = dy
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
            (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) * d, (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * d, (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * d,
            (m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2)) * d, (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * d, (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * d,
            (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)) * d, (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * d, (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * d,
        ]
    }
}
