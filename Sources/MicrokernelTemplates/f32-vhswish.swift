// HARD_SWISH as XNNPACK's vhswish kernels compute it (src/f32-vhswish/simd.c.in): one fused multiply-add
// x * (1/6) + 0.5 with 1/6 rounded to float (0x1.555556p-3), clamped to [0, 1] (max, then min), times x.
// Every lane is independent, so the vector width never changes a value.

/// HARD_SWISH of `count` floats from `input` into `output` (which may be `input`).
public func f32HardSwish(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int) {
    let sixth = Vec(repeating: 0x1.555556p-3), half = Vec(repeating: 0.5)
    let zero = Vec(repeating: 0), one = Vec(repeating: 1)
    var i = 0
    while i &+ Vec.scalarCount <= count {
        let x = loadVec(input + i)
        storeVec(clamp(madd(half, x, sixth), zero, one) * x, output + i)
        i &+= Vec.scalarCount
    }
    while i < count {
        let x = input[i]
        let a = madd(Float(0.5), x, Float(0x1.555556p-3))
        let lo: Float = 0 > a ? 0 : a
        output[i] = (1 < lo ? 1 : lo) * x
        i &+= 1
    }
}
