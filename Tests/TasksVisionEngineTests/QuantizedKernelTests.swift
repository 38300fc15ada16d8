import Foundation
@testable import TasksVisionEngine
import TasksVisionKernels
import TasksVisionKernelsAVX2
import TasksVisionKernelsAVX512
import TasksVisionKernelsAVX512VNNI
import TasksVisionKernelsNEON
import TasksVisionKernelsPortable
import XCTest

/// Every int8 microkernel against a naive loop, byte for byte: integer sums are exact, so the kernels of every set
/// (and the NEON and portable ones, whose Swift SIMD code also builds and runs here) must give the naive bytes.
/// The edges: zero points at -128 and 127, outputs that saturate, per-channel scales 1000x apart, odd channel and
/// column counts, k not a multiple of 4, strides 2, padding, dilation, fused-activation bounds.
final class QuantizedKernelTests: XCTestCase {
    /// The requantization written out plainly: float product, clamp, round half to even, zero point.
    static func naiveRequantize(_ acc: Int32, _ scale: Float, _ zp: Int32, _ lo: Int32, _ hi: Int32) -> Int8 {
        let v = (Float(acc) * scale).rounded(.toNearestOrEven)
        let q = v >= Float(Int32.max) ? Int64(Int32.max) : (v <= Float(Int32.min) ? Int64(Int32.min) : Int64(v))
        return Int8(max(Int64(lo), min(Int64(hi), q + Int64(zp))))
    }

    struct GEMMKernel { let name: String; let nr: Int; let inputOffset: Int32; let run: (QS8GEMMArguments) -> Void }

    /// The GEMMs this CPU can run, plus the NEON and portable ones (baseline Swift SIMD, which builds everywhere).
    static var gemmKernels: [GEMMKernel] {
        var kernels = [
            GEMMKernel(name: "portable", nr: TasksVisionKernelsPortable.qs8GEMMTile.nr,
                       inputOffset: TasksVisionKernelsPortable.qs8GEMMTile.inputOffset,
                       run: TasksVisionKernelsPortable.qs8QC8WGEMM),
            GEMMKernel(name: "neon", nr: TasksVisionKernelsNEON.qs8GEMMTile.nr,
                       inputOffset: TasksVisionKernelsNEON.qs8GEMMTile.inputOffset,
                       run: TasksVisionKernelsNEON.qs8QC8WGEMM),
        ]
        if KernelSet.avx2.isSupported() {
            kernels.append(GEMMKernel(name: "avx2", nr: TasksVisionKernelsAVX2.qs8GEMMTile.nr,
                                      inputOffset: TasksVisionKernelsAVX2.qs8GEMMTile.inputOffset,
                                      run: TasksVisionKernelsAVX2.qs8QC8WGEMM))
        }
        if CPUFeatures.current.hasAVX512VNNI {
            kernels.append(GEMMKernel(name: "avx512vnni", nr: TasksVisionKernelsAVX512VNNI.qs8GEMMTile.nr,
                                      inputOffset: TasksVisionKernelsAVX512VNNI.qs8GEMMTile.inputOffset,
                                      run: TasksVisionKernelsAVX512VNNI.qs8QC8WGEMM))
        }
        return kernels
    }

    func testGEMMKernelsAgainstNaiveSums() throws {
        var rng = CaseRandom(seed: 53)
        var cases = 0
        for (m, k, n, xzp, yzp) in [(1, 1, 1, 0, 0), (3, 5, 17, -128, 127), (8, 28, 32, 127, -128), (9, 64, 33, 3, -7),
                                     (17, 13, 100, -128, -128), (2, 160, 5, 127, 127), (33, 24, 144, -5, 0),
                                     (7, 4, 48, 10, 20)] {
            let weights = rng.bytes(n * k, -127...127)
            let bias = (0..<n).map { _ in Int32(rng.int(-30000...30000)) }
            // Per-channel scales across three decades; a few large enough to saturate.
            let scales = (0..<n).map { j in j % 5 == 0 ? rng.float(0.02, 0.2) : rng.float(0.00002, 0.002) }
            let lda = k + rng.int(0...3)
            let a = rng.bytes(m * lda + 64)
            for activation in [(Int32(-128), Int32(127)), (Int32(yzp), min(Int32(127), Int32(yzp) + 60))] {
                var expected = [Int8](repeating: 0, count: m * n)
                for r in 0..<m {
                    for j in 0..<n {
                        var acc = bias[j]
                        for i in 0..<k { acc += (Int32(a[r * lda + i]) - Int32(xzp)) * Int32(weights[j * k + i]) }
                        expected[r * n + j] = Self.naiveRequantize(acc, scales[j], Int32(yzp), activation.0,
                                                                   activation.1)
                    }
                }
                for kernel in Self.gemmKernels {
                    let packed = weights.withUnsafeBufferPointer {
                        QS8PackedWeights(weights: $0.baseAddress!, n: n, realK: k, bias: bias, scales: scales,
                                         inputZeroPoint: Int32(xzp), inputOffset: kernel.inputOffset, nr: kernel.nr,
                                         kr: 4)
                    }
                    var c = [Int8](repeating: 0, count: m * n)
                    withExtendedLifetime(packed) {
                        a.withUnsafeBufferPointer { ap in
                            c.withUnsafeMutableBufferPointer { cp in
                                kernel.run(QS8GEMMArguments(
                                    m: m, k: packed.view.k, a: ap.baseAddress!, lda: lda, weights: packed.view,
                                    c: cp.baseAddress!, ldc: n,
                                    output: QS8Output(zeroPoint: Int32(yzp), min: activation.0, max: activation.1)))
                            }
                        }
                    }
                    let wrong = zip(c, expected).filter { $0 != $1 }.count
                    XCTAssertEqual(wrong, 0, "\(kernel.name) \(m)x\(k)x\(n) zero points \(xzp)/\(yzp) bounds "
                                   + "\(activation): \(wrong) bytes differ")
                    cases += 1
                }
                let reachesBoth = expected.contains(Int8(activation.0)) && expected.contains(Int8(activation.1))
                XCTAssertTrue(reachesBoth || m * n < 20, "\(m)x\(k)x\(n): the case reaches both bounds")
            }
        }
        print("int8 GEMM kernels: \(cases) cases the naive bytes (\(Self.gemmKernels.map(\.name)))")
    }

    struct DepthwiseKernel { let name: String; let cr: Int; let run: (QS8DepthwiseRowArguments) -> Void }

    static var depthwiseKernels: [DepthwiseKernel] {
        var kernels = [
            DepthwiseKernel(name: "portable", cr: TasksVisionKernelsPortable.qs8DepthwiseChannels,
                            run: TasksVisionKernelsPortable.qs8QC8WDepthwiseRow),
            DepthwiseKernel(name: "neon", cr: TasksVisionKernelsNEON.qs8DepthwiseChannels,
                            run: TasksVisionKernelsNEON.qs8QC8WDepthwiseRow),
        ]
        if KernelSet.avx2.isSupported() {
            kernels += [DepthwiseKernel(name: "avx2", cr: TasksVisionKernelsAVX2.qs8DepthwiseChannels,
                                        run: TasksVisionKernelsAVX2.qs8QC8WDepthwiseRow),
                        DepthwiseKernel(name: "avx2-mul16", cr: TasksVisionKernelsAVX2.qs8DepthwiseMul16Channels,
                                        run: TasksVisionKernelsAVX2.qs8QC8WDepthwiseRowMul16)]
        }
        if KernelSet.avx512.isSupported() {
            kernels += [DepthwiseKernel(name: "avx512", cr: TasksVisionKernelsAVX512.qs8DepthwiseChannels,
                                        run: TasksVisionKernelsAVX512.qs8QC8WDepthwiseRow),
                        DepthwiseKernel(name: "avx512-mul16", cr: TasksVisionKernelsAVX512.qs8DepthwiseMul16Channels,
                                        run: TasksVisionKernelsAVX512.qs8QC8WDepthwiseRowMul16)]
        }
        return kernels
    }

    func testDepthwiseKernelsAgainstNaiveSums() throws {
        var rng = CaseRandom(seed: 99)
        var cases = 0
        // (height, width, channels, kernel, stride, dilation, input zero point, output zero point)
        for (h, w, c, k, s, d, xzp, yzp) in [(5, 7, 7, 3, 1, 1, -128, 127), (9, 8, 33, 3, 2, 1, 127, -128),
                                             (6, 11, 40, 5, 1, 1, 3, 0), (12, 9, 17, 5, 2, 1, -20, 60),
                                             (7, 7, 64, 3, 1, 2, 0, -3), (4, 3, 1, 3, 1, 1, 100, -100),
                                             (3, 5, 48, 5, 2, 1, -128, -128)] {
            let taps = k * k
            let weights = rng.bytes(taps * c, -127...127)
            let bias = (0..<c).map { _ in Int32(rng.int(-5000...5000)) }
            let scales = (0..<c).map { j in j % 4 == 0 ? rng.float(0.05, 0.5) : rng.float(0.0005, 0.005) }
            let input = rng.bytes(h * w * c + 64)
            let pv = ConvGeometry.padding(.same, input: h, kernel: k, stride: s, dilation: d)
            let ph = ConvGeometry.padding(.same, input: w, kernel: k, stride: s, dilation: d)
            var expected = [Int8](repeating: 0, count: pv.out * ph.out * c)
            for oy in 0..<pv.out {
                for ox in 0..<ph.out {
                    for ch in 0..<c {
                        var acc = bias[ch]
                        for ky in 0..<k {
                            for kx in 0..<k {
                                let iy = oy * s - pv.before + ky * d, ix = ox * s - ph.before + kx * d
                                guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                                acc += (Int32(input[(iy * w + ix) * c + ch]) - Int32(xzp))
                                    * Int32(weights[(ky * k + kx) * c + ch])
                            }
                        }
                        expected[(oy * ph.out + ox) * c + ch] = Self.naiveRequantize(acc, scales[ch], Int32(yzp), -128,
                                                                                     127)
                    }
                }
            }
            let zero = [Int8](repeating: Int8(xzp), count: c + 128)
            for kernel in Self.depthwiseKernels {
                let packed = weights.withUnsafeBufferPointer {
                    QS8PackedDepthwiseWeights(weights: $0.baseAddress!, channels: c, taps: taps, bias: bias,
                                              scales: scales, inputZeroPoint: Int32(xzp), cr: kernel.cr)
                }
                var out = [Int8](repeating: 0, count: pv.out * ph.out * c + 64)
                withExtendedLifetime(packed) {
                    input.withUnsafeBufferPointer { ip in
                        zero.withUnsafeBufferPointer { zp in
                            out.withUnsafeMutableBufferPointer { op in
                                for oy in 0..<pv.out {
                                    kernel.run(QS8DepthwiseRowArguments(
                                        input: ip.baseAddress!, inH: h, inW: w, channels: c, kH: k, kW: k, strideW: s,
                                        dilationH: d, dilationW: d, padLeft: ph.before, iy0: oy * s - pv.before,
                                        zeroRow: zp.baseAddress!, weights: packed.view,
                                        output: op.baseAddress! + oy * ph.out * c, outW: ph.out,
                                        quantization: QS8Output(zeroPoint: Int32(yzp), min: -128, max: 127)))
                                }
                            }
                        }
                    }
                }
                let wrong = zip(out, expected).filter { $0 != $1 }.count
                XCTAssertEqual(wrong, 0, "\(kernel.name) \(h)x\(w)x\(c) k\(k) s\(s) d\(d): \(wrong) bytes differ")
                XCTAssertTrue(out[expected.count...].allSatisfy { $0 == 0 }, "\(kernel.name): wrote past the output")
                cases += 1
            }
        }
        print("int8 depthwise kernels: \(cases) cases the naive bytes (\(Self.depthwiseKernels.map(\.name)))")
    }

    func testBinaryKernelsAgainstTheScalarFormula() throws {
        var kernels: [(String, (QS8BinaryArguments) -> Void)] = [("portable", TasksVisionKernelsPortable.qs8VBinary),
                                                                 ("neon", TasksVisionKernelsNEON.qs8VBinary)]
        if KernelSet.avx2.isSupported() { kernels.append(("avx2", TasksVisionKernelsAVX2.qs8VBinary)) }
        if KernelSet.avx512.isSupported() { kernels.append(("avx512", TasksVisionKernelsAVX512.qs8VBinary)) }
        var rng = CaseRandom(seed: 7)
        for operation in [QS8BinaryArguments.Operation.add, .multiply] {
            for unsigned in [false, true] {
                for (count, scalar) in [(1, false), (37, false), (100, true), (16, false)] {
                    let range: ClosedRange<Int> = unsigned ? 0...255 : -128...127
                    let a = (0..<count + 32).map { _ in UInt8(truncatingIfNeeded: rng.int(range)) }
                    let b = (0..<count + 32).map { _ in UInt8(truncatingIfNeeded: rng.int(range)) }
                    for (name, kernel) in kernels {
                        var out = [UInt8](repeating: 0, count: count + 32)
                        var arguments: QS8BinaryArguments?
                        a.withUnsafeBytes { ap in
                            b.withUnsafeBytes { bp in
                                out.withUnsafeMutableBytes { op in
                                    let p = QS8BinaryArguments(
                                        operation: operation, unsigned: unsigned, count: count, a: ap.baseAddress!,
                                        b: bp.baseAddress!, bIsScalar: scalar, output: op.baseAddress!,
                                        aMultiplier: 1_234_567, bMultiplier: -987_654, bias: 1 << 19, shift: 20,
                                        aZeroPoint: unsigned ? 200 : -100, bZeroPoint: unsigned ? 3 : 90, scale: 0.37,
                                        zeroPoint: unsigned ? 128 : -5, min: unsigned ? 10 : -120,
                                        max: unsigned ? 250 : 100)
                                    kernel(p)
                                    arguments = p
                                }
                            }
                        }
                        guard let p = arguments else { return XCTFail("no arguments") }
                        for i in 0..<count {
                            let x = unsigned ? Int32(a[i]) : Int32(Int8(bitPattern: a[i]))
                            let j = scalar ? 0 : i
                            let y = unsigned ? Int32(b[j]) : Int32(Int8(bitPattern: b[j]))
                            XCTAssertEqual(out[i], UInt8(truncatingIfNeeded: p.combine(x, y)),
                                           "\(name) \(operation) unsigned \(unsigned) count \(count) element \(i)")
                        }
                        XCTAssertTrue(out[count...].allSatisfy { $0 == 0 }, "\(name): wrote past the output")
                    }
                }
            }
        }
    }

    /// DEQUANTIZE's vector kernels give the scalar formula's floats, bit for bit, vector lanes and tail.
    func testDequantizeKernelsAgainstTheScalarFormula() throws {
        typealias Kernel = (UnsafeRawPointer, UnsafeMutablePointer<Float>, Int, Bool, Int32, Float) -> Void
        var kernels: [(String, Kernel)] = [
            ("portable", { TasksVisionKernelsPortable.qs8F32VCvt($0, $1, count: $2, unsigned: $3, zeroPoint: $4,
                                                                 scale: $5) }),
            ("neon", { TasksVisionKernelsNEON.qs8F32VCvt($0, $1, count: $2, unsigned: $3, zeroPoint: $4, scale: $5) }),
        ]
        if KernelSet.avx2.isSupported() {
            kernels.append(("avx2", { TasksVisionKernelsAVX2.qs8F32VCvt($0, $1, count: $2, unsigned: $3,
                                                                        zeroPoint: $4, scale: $5) }))
        }
        if KernelSet.avx512.isSupported() {
            kernels.append(("avx512", { TasksVisionKernelsAVX512.qs8F32VCvt($0, $1, count: $2, unsigned: $3,
                                                                            zeroPoint: $4, scale: $5) }))
        }
        // Every byte, then a tail that no vector width divides.
        let bytes = (0..<256 + 37).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for unsigned in [false, true] {
            for (zeroPoint, scale) in [(Int32(unsigned ? 0 : -128), Float(0.0039215689)),
                                       (unsigned ? 255 : 127, 3.7e-5), (unsigned ? 131 : 5, 0.1)] {
                for (name, kernel) in kernels {
                    var out = [Float](repeating: -1, count: bytes.count + 16)
                    bytes.withUnsafeBytes { x in
                        out.withUnsafeMutableBufferPointer { kernel(x.baseAddress!, $0.baseAddress!, bytes.count,
                                                                    unsigned, zeroPoint, scale) }
                    }
                    for (i, b) in bytes.enumerated() {
                        let q = unsigned ? Int32(b) : Int32(Int8(bitPattern: b))
                        XCTAssertEqual(out[i].bitPattern, (Float(q - zeroPoint) * scale).bitPattern,
                                       "\(name) unsigned \(unsigned) zero point \(zeroPoint) element \(i)")
                    }
                    XCTAssertTrue(out[bytes.count...].allSatisfy { $0 == -1 }, "\(name): wrote past the output")
                }
            }
        }
    }

    /// The vector table lookups (`vpshufb` over 16 folded rows) give the table's entry for every byte, in the vectors
    /// and in the tail, on random tables and on the identity.
    func testLookupKernelsAgainstTheTable() throws {
        typealias Kernel = (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, UnsafePointer<UInt8>) -> Void
        var kernels: [(String, Kernel)] = []
        if KernelSet.avx2.isSupported() {
            kernels.append(("avx2", { TasksVisionKernelsAVX2.x8LUT($0, $1, count: $2, table: $3) }))
        }
        if KernelSet.avx512.isSupported() {
            kernels.append(("avx512", { TasksVisionKernelsAVX512.x8LUT($0, $1, count: $2, table: $3) }))
        }
        guard !kernels.isEmpty else { throw XCTSkip("no vector lookup on this CPU") }
        var rng = CaseRandom(seed: 11)
        let input = (0..<(3 * 256 + 45)).map {
            $0 < 512 ? UInt8(truncatingIfNeeded: $0 &* 151) : UInt8(rng.int(0...255))
        }
        for trial in 0..<4 {
            let table = trial == 0 ? (0..<256).map { UInt8($0) } : (0..<256).map { _ in UInt8(rng.int(0...255)) }
            for (name, kernel) in kernels {
                for count in [input.count, 64, 31, 1] {
                    var out = [UInt8](repeating: 0xA5, count: count + 64)
                    input.withUnsafeBufferPointer { x in
                        table.withUnsafeBufferPointer { t in
                            out.withUnsafeMutableBufferPointer { kernel(x.baseAddress!, $0.baseAddress!, count,
                                                                        t.baseAddress!) }
                        }
                    }
                    let expected = input[..<count].map { table[Int($0)] }
                    XCTAssertEqual(Array(out[..<count]), expected, "\(name) table \(trial) count \(count)")
                    XCTAssertTrue(out[count...].allSatisfy { $0 == 0xA5 }, "\(name): wrote past the output")
                }
            }
        }
    }
}

extension CaseRandom {
    /// `n` values in `range`, as int8.
    mutating func bytes(_ n: Int, _ range: ClosedRange<Int> = -128...127) -> [Int8] {
        (0..<n).map { _ in Int8(int(range)) }
    }
}
