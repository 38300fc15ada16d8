import TasksVisionKernels
import TasksVisionVectorFMA

// 8-bit ADD/SUB and MUL on vectors of `QDSums.scalarCount` lanes (XNNPACK's `qs8-vadd ... mul32` and `qs8-vmul ...
// fp32`): bytes widened to 32-bit lanes, the integer sum or the float requantized product, clamped, narrowed.
// The last `count % lanes` values one by one (`QS8BinaryArguments.combine`).

public func qs8VBinary(_ p: QS8BinaryArguments) {
    let V = QDSums.scalarCount
    let lo = QDSums(repeating: p.min), hi = QDSums(repeating: p.max)
    let i16lo = QDSums(repeating: -32768), i16hi = QDSums(repeating: 32767)
    let zp = QDSums(repeating: p.zeroPoint)
    let bScalar = QDSums(repeating: p.unsigned ? Int32(p.b.load(as: UInt8.self)) : Int32(p.b.load(as: Int8.self)))
    var i = 0
    switch p.operation {
    case .add:
        let am = QDSums(repeating: p.aMultiplier), bm = QDSums(repeating: p.bMultiplier)
        let bias = QDSums(repeating: p.bias), shift = QDSums(repeating: p.shift)
        while i &+ V <= p.count {
            let x = qs8WidenAt(p.a, i, p.unsigned), y = p.bIsScalar ? bScalar : qs8WidenAt(p.b, i, p.unsigned)
            let acc = (bias &+ x &* am &+ y &* bm) &>> shift
            let v = qs8Clamp(qs8Clamp(acc, i16lo, i16hi) &+ zp, lo, hi)
            p.output.storeBytes(of: narrowToBytes(v), toByteOffset: i, as: QDBytes.self)
            i &+= V
        }
    case .multiply:
        let az = QDSums(repeating: p.aZeroPoint), bz = QDSums(repeating: p.bZeroPoint)
        let scale = QDFloats(repeating: p.scale)
        let flo = QDFloats(repeating: Float(p.min &- p.zeroPoint)), fhi = QDFloats(repeating: Float(p.max &- p.zeroPoint))
        while i &+ V <= p.count {
            let x = qs8WidenAt(p.a, i, p.unsigned), y = p.bIsScalar ? bScalar : qs8WidenAt(p.b, i, p.unsigned)
            let product = (x &- az) &* (y &- bz)
            let bytes = qs8DepthwiseRequantize(product, scale, flo, fhi, zp)
            p.output.storeBytes(of: bytes, toByteOffset: i, as: QDBytes.self)
            i &+= V
        }
    }
    while i < p.count {
        let x = p.unsigned ? Int32(p.a.load(fromByteOffset: i, as: UInt8.self))
                           : Int32(p.a.load(fromByteOffset: i, as: Int8.self))
        let bOffset = p.bIsScalar ? 0 : i
        let y = p.unsigned ? Int32(p.b.load(fromByteOffset: bOffset, as: UInt8.self))
                           : Int32(p.b.load(fromByteOffset: bOffset, as: Int8.self))
        p.output.storeBytes(of: UInt8(truncatingIfNeeded: p.combine(x, y)), toByteOffset: i, as: UInt8.self)
        i &+= 1
    }
}

/// A vector of bytes at `base + i`, widened (zero-extended for uint8, sign-extended for int8).
@_transparent func qs8WidenAt(_ base: UnsafeRawPointer, _ i: Int, _ unsigned: Bool) -> QDSums {
    unsigned ? widenUnsignedBytes(base.loadUnaligned(fromByteOffset: i, as: SIMDQDUnsigned.self))
             : widenBytes(base.loadUnaligned(fromByteOffset: i, as: QDBytes.self))
}

/// `min(max(v, lo), hi)` lane by lane (LLVM's `vpmaxsd`, `vpminsd`).
@_transparent func qs8Clamp(_ v: QDSums, _ lo: QDSums, _ hi: QDSums) -> QDSums {
    var low = QDSums()
    for j in 0..<QDSums.scalarCount { low[j] = v[j] < lo[j] ? lo[j] : v[j] }
    var r = QDSums()
    for j in 0..<QDSums.scalarCount { r[j] = low[j] > hi[j] ? hi[j] : low[j] }
    return r
}
