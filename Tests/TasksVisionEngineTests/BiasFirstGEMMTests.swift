@testable import TasksVisionEngine
import XCTest

/// `BiasFirstGEMM` against its definition: every output one fused multiply-add chain from the
/// bias through k in order (XNNPACK's GEMM order), bit for bit, on the shapes where OpenBLAS's
/// kernels would break the chain: K above the packed kernels' 448, small-matrix calls with a
/// 1-8 column tail, one output column, single rows, row tails, the packed path.
final class BiasFirstGEMMTests: XCTestCase {
    /// The definition, with `Float.addingProduct` (a fused multiply-add: one rounding).
    func chain(_ a: [Float], _ w: [Float], _ bias: [Float]?, rows: Int, k: Int, columns: Int) -> [Float] {
        var out = [Float](repeating: 0, count: rows * columns)
        for r in 0..<rows {
            for c in 0..<columns {
                var acc = bias?[c] ?? 0
                for i in 0..<k { acc = acc.addingProduct(a[r * k + i], w[c * k + i]) }
                out[r * columns + c] = acc
            }
        }
        return out
    }

    func testSumsAreOneChainFromTheBias() throws {
        guard BLASConfiguration.coreName == "SkylakeX" else {
            throw XCTSkip("the chain order is that of OpenBLAS's AVX-512 kernels; this process runs "
                          + "\(BLASConfiguration.coreName)")
        }
        // (rows, k, columns, rows per call, column block)
        let shapes: [(Int, Int, Int, Int, Int)] = [
            (64, 864, 144, 64, 144),   // K > 448: small-matrix calls in blocks
            (4, 1152, 195, 4, 195),    // the pose heads: K > 448, tail of 3
            (1, 1152, 1, 1, 1),        // the pose presence flag: one column
            (300, 144, 24, 300, 24),   // a tail of 8 on the small-matrix kernels
            (50, 64, 8, 50, 8),        // only a tail
            (37, 100, 16, 37, 16),     // row tail
            (1, 300, 63, 1, 63),       // one row, a masked tail of 15
            (5000, 65, 8, 256, 8),     // packed calls
            (700, 300, 100, 256, 100), // packed calls, deep
            (49, 112, 400, 49, 176),   // column blocks
        ]
        var seed: UInt64 = 7
        for (rows, k, columns, rowsPerCall, columnBlock) in shapes {
            for withBias in [true, false] {
                seed += 1
                let a = fixtureRandomFloats(seed: seed, count: rows * k, low: -1, high: 1)
                let w = fixtureRandomFloats(seed: seed + 100, count: columns * k, low: -1, high: 1)
                let bias = withBias ? fixtureRandomFloats(seed: seed + 200, count: columns, low: -1, high: 1) : nil
                let expected = chain(a, w, bias, rows: rows, k: k, columns: columns)
                let gemm = w.withUnsafeBufferPointer { wp in
                    bias.withUnsafeBufferPointerIfAny { bp in
                        BiasFirstGEMM(weights: wp.baseAddress!, bias: bp, k: k, columns: columns,
                                      rowsPerCall: rowsPerCall, columnBlock: columnBlock)
                    }
                }
                defer { gemm.deallocate() }
                var out = [Float](repeating: .nan, count: rows * columns)
                var scratch = [Float](repeating: .nan, count: gemm.scratchFloats(ledRows: rows))
                a.withUnsafeBufferPointer { ap in
                    out.withUnsafeMutableBufferPointer { op in
                        scratch.withUnsafeMutableBufferPointer { sp in
                            gemm.multiply(rowsOf: ap.baseAddress!, stride: k, rows: rows, into: op.baseAddress!,
                                          ldc: columns, scratch: sp.baseAddress!)
                        }
                    }
                }
                let differing = zip(out, expected).filter { $0 != $1 }.count
                XCTAssertEqual(differing, 0,
                               "\(rows)x\(k)x\(columns) \(withBias ? "with" : "without") bias: outputs off the chain")
            }
        }
    }
}

private extension Optional where Wrapped == [Float] {
    func withUnsafeBufferPointerIfAny<R>(_ body: (UnsafePointer<Float>?) -> R) -> R {
        switch self {
        case .some(let array): return array.withUnsafeBufferPointer { body($0.baseAddress) }
        case .none: return body(nil)
        }
    }
}
