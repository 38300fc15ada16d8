// XNNPACK's x86 sigmoid kernels (linked from its C source by check.sh) against the engine's
// copies, on every one of the 2^32 inputs. NaN outputs count as equal whatever their payload.
#if canImport(Glibc)
import Glibc
#endif

@_silgen_name("xnn_f32_vsigmoid_ukernel__avx2_rr1_p5_div_u16")
func xnnAVX2(_ bytes: Int, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ p: UnsafeRawPointer?)
@_silgen_name("xnn_f32_vsigmoid_ukernel__avx512f_rr2_lut32_p2_perm2_scalef_div_u64")
func xnnAVX512(_ bytes: Int, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ p: UnsafeRawPointer?)

func same(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }

let chunk = 1 << 20
var x = [Float](repeating: 0, count: chunk), y2 = x, y5 = x
var differ2 = 0, differ5 = 0, kernelsDiffer = 0
for c in 0..<(1 << 12) {
    for i in 0..<chunk { x[i] = Float(bitPattern: UInt32(c << 20 | i)) }
    xnnAVX2(chunk * 4, x, &y2, nil)
    xnnAVX512(chunk * 4, x, &y5, nil)
    for i in 0..<chunk {
        let a = XNNPACKElementwise.sigmoidAVX2(x[i]), b = XNNPACKElementwise.sigmoidAVX512(x[i])
        if !same(a, y2[i]) {
            if differ2 < 5 { print("avx2 sigmoid(\(x[i])): ours \(a), XNNPACK \(y2[i])") }
            differ2 += 1
        }
        if !same(b, y5[i]) {
            if differ5 < 5 { print("avx512 sigmoid(\(x[i])): ours \(b), XNNPACK \(y5[i])") }
            differ5 += 1
        }
        if !same(y2[i], y5[i]) { kernelsDiffer += 1 }
    }
}
print("sigmoid, 2^32 inputs: avx2 \(differ2) differ, avx512 \(differ5) differ " +
      "(XNNPACK's two kernels differ from each other on \(kernelsDiffer))")
exit(differ2 + differ5 == 0 ? 0 : 1)
