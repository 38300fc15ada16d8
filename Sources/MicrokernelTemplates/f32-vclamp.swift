// RELU, RELU6 and RELU_N1_TO_1 as XNNPACK's vclamp kernels compute them (src/f32-vclamp): max with the lower bound,
// then min with the upper one, lane by lane, so a NaN input stays NaN (maxps and minps return their second
// operand, the input, when either is NaN). Lanes are independent: the vector width never changes a value.

/// `min(max(x, lo), hi)` of `count` floats from `input` into `output` (which may be `input`).
public func f32Clamp(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ count: Int,
                     _ lo: Float, _ hi: Float) {
    let vlo = Vec(repeating: lo), vhi = Vec(repeating: hi), V = Vec.scalarCount
    var i = 0
    while i &+ 4 &* V <= count {
        let a = loadVec(input + i), b = loadVec(input + (i &+ V))
        let c = loadVec(input + (i &+ 2 &* V)), d = loadVec(input + (i &+ 3 &* V))
        storeVec(clamp(a, vlo, vhi), output + i)
        storeVec(clamp(b, vlo, vhi), output + (i &+ V))
        storeVec(clamp(c, vlo, vhi), output + (i &+ 2 &* V))
        storeVec(clamp(d, vlo, vhi), output + (i &+ 3 &* V))
        i &+= 4 &* V
    }
    while i &+ V <= count {
        storeVec(clamp(loadVec(input + i), vlo, vhi), output + i)
        i &+= V
    }
    while i < count {
        let x = input[i]
        let m = lo > x ? lo : x
        output[i] = hi < m ? hi : m
        i &+= 1
    }
}
