// XNNPACK's x86 raddstoreexpminusmax kernels (linked from its C source by check.sh) against the
// engine's exp and sum: every input <= 0 (max 0), then random rows for the sum's order.
#if canImport(Glibc)
import Glibc
#endif

typealias RAddStoreExpMinusMax = (Int, UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>,
                                  UnsafeMutablePointer<Float>, UnsafeRawPointer?) -> Void
@_silgen_name("xnn_f32_raddstoreexpminusmax_ukernel__avx2_rr2_p5_u32_acc2")
func radd2(_ bytes: Int, _ x: UnsafePointer<Float>, _ max: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
           _ sum: UnsafeMutablePointer<Float>, _ p: UnsafeRawPointer?)
@_silgen_name("xnn_f32_raddstoreexpminusmax_ukernel__avx512f_rr2_p5_u64_acc2")
func radd5(_ bytes: Int, _ x: UnsafePointer<Float>, _ max: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
           _ sum: UnsafeMutablePointer<Float>, _ p: UnsafeRawPointer?)

func same(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }
let kernels: [(name: String, lanes: Int, run: RAddStoreExpMinusMax)] = [("avx2", 8, radd2), ("avx512", 16, radd5)]

let chunk = 1 << 20
var x = [Float](repeating: 0, count: chunk), y = x
var zero: Float = 0, sum: Float = 0, failures = 0
for k in kernels {
    var differ = 0
    for c in 0..<(1 << 11) {  // the sign bit set: every x <= -0, and the negative NaNs
        for i in 0..<chunk { x[i] = Float(bitPattern: 0x8000_0000 | UInt32(c << 20 | i)) }
        k.run(chunk * 4, x, &zero, &y, &sum, nil)
        for i in 0..<chunk where !same(XNNPACKElementwise.expMinusMax(x[i] - 0), y[i]) {
            if differ < 5 {
                print("\(k.name) exp(\(x[i])): ours \(XNNPACKElementwise.expMinusMax(x[i])), XNNPACK \(y[i])")
            }
            differ += 1
        }
    }
    print("exp, 2^31 inputs <= 0: \(k.name) \(differ) differ")
    failures += differ
}
var rng = SystemRandomNumberGenerator()
var sumsDiffer = [0, 0]
for trial in 0..<200_000 {
    let n = Int.random(in: 1...300, using: &rng)
    let v = (0..<n).map { _ in Float.random(in: -20...5, using: &rng) * (trial % 3 == 0 ? 10 : 1) }
    var m = v.max() ?? 0
    let ours = v.map { XNNPACKElementwise.expMinusMax($0 - m) }
    for (index, k) in kernels.enumerated() {
        var out = [Float](repeating: 0, count: n)
        k.run(n * 4, v, &m, &out, &sum, nil)
        let mine = ours.withUnsafeBufferPointer { XNNPACKElementwise.sum($0.baseAddress!, count: n, lanes: k.lanes) }
        if out != ours || mine.bitPattern != sum.bitPattern { sumsDiffer[index] += 1 }
    }
}
print("softmax rows (200000, 1-300 values): avx2 \(sumsDiffer[0]) differ, avx512 \(sumsDiffer[1]) differ")
failures += sumsDiffer.reduce(0, +)
exit(failures == 0 ? 0 : 1)
