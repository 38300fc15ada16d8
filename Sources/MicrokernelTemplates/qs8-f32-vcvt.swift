import TasksVisionKernels
import TasksVisionVectorFMA

// DEQUANTIZE on vectors of `QDSums.scalarCount` lanes (XNNPACK's `qs8-f32-vcvt` / `qu8-f32-vcvt`): bytes widened to
// 32-bit lanes, less the zero point (exact), converted (exact below 2^24) and multiplied by the scale, one rounding:
// `Float(q - zeroPoint) * scale` as the scalar formula. The last `count % lanes` values one by one.

public func qs8F32VCvt(_ x: UnsafeRawPointer, _ y: UnsafeMutablePointer<Float>, count: Int, unsigned: Bool,
                       zeroPoint: Int32, scale: Float) {
    let V = QDSums.scalarCount
    let zp = QDSums(repeating: zeroPoint), s = QDFloats(repeating: scale)
    var i = 0
    while i &+ V <= count {
        let v = convertToFloat(qs8WidenAt(x, i, unsigned) &- zp) * s
        UnsafeMutableRawPointer(y + i).storeBytes(of: v, as: QDFloats.self)
        i &+= V
    }
    while i < count {
        let q = unsigned ? Int32(x.load(fromByteOffset: i, as: UInt8.self))
                         : Int32(x.load(fromByteOffset: i, as: Int8.self))
        y[i] = Float(q &- zeroPoint) * scale
        i &+= 1
    }
}
