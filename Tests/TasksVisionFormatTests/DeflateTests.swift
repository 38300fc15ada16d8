import Foundation
@testable import TasksVisionFormat
import XCTest

/// The deflate compressor beside `Inflate`: every stream inflates back to its input (our `Inflate`, written from
/// RFC 1951 alone, is the reader; zlib reads them too, see docs/robustness.md), codes never exceed 15 bits, and
/// data compresses as a zlib-level compressor's would.
final class DeflateTests: XCTestCase {
    func roundTrip(_ data: [UInt8], _ label: String, effort: Deflate.Effort = .fast) throws -> Int {
        let z = Deflate.zlib(data, effort: effort)
        XCTAssertEqual(z.first, 0x78, label)
        XCTAssertEqual((UInt16(z[0]) << 8 | UInt16(z[1])) % 31, 0, label)
        XCTAssertEqual(try Inflate.zlib(z, limit: data.count), data, label)
        return z.count
    }

    func testStreamsInflateBack() throws {
        var state: UInt64 = 1
        func random() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(state >> 56)
        }
        let noise = (0..<200_000).map { _ in random() }
        let text = Array(String(repeating: "an output never replaces an input; ", count: 3000).utf8)
        // Rows of a picture: runs, gradients and repeats at the distance of a row and of a pixel.
        let picture = (0..<300_000).map { i -> UInt8 in UInt8(truncatingIfNeeded: (i % 900) / 3 + (i / 900) % 7) }
        let cases: [([UInt8], String, Double)] = [
            ([], "empty", 1), ([7], "one byte", 1), ([UInt8](repeating: 0, count: 1 << 20), "zeros", 0.002),
            (noise, "noise", 1.001), (text, "text", 0.01), (picture, "picture", 0.05),
            (Array(noise[0..<70_000]) + Array(noise[0..<70_000]), "a repeat beyond the 32 KiB window", 1.01),
            (Array(noise[0..<20_000]) + Array(noise[0..<20_000]), "a repeat 20,000 bytes back", 0.51),
        ]
        for (data, label, ratio) in cases {
            let size = try roundTrip(data, label)
            XCTAssertLessThanOrEqual(Double(size), max(16, ratio * Double(data.count) + 16), label)
        }
        let thorough = try roundTrip(picture, "picture, thorough", effort: .thorough)
        XCTAssertLessThanOrEqual(thorough, Deflate.zlib(picture).count)
    }

    /// Frequencies along the Fibonacci sequence would give 25-bit codes: they are limited to 15 (7 for the code
    /// lengths' own code), the code stays complete (Kraft sum 1), and the stream inflates.
    func testCodeLengthsAreLimited() throws {
        var fib = [1, 1]
        while fib.count < 30 { fib.append(fib[fib.count - 1] + fib[fib.count - 2]) }
        for limit in [15, 7] {
            let lengths = Deflate.codeLengths(fib, limit: limit)
            XCTAssertLessThanOrEqual(lengths.max() ?? 99, limit)
            XCTAssertTrue(lengths.allSatisfy { $0 > 0 })
            let kraft = lengths.reduce(0.0) { $0 + pow(2, -Double($1)) }
            XCTAssertEqual(kraft, 1, accuracy: 1e-12, "limit \(limit)")
            // The commonest symbol has the shortest code.
            XCTAssertEqual(lengths.last, lengths.min())
        }
        // Data whose literals have those frequencies, shuffled so that LZ77 finds little.
        var data: [UInt8] = []
        for (symbol, count) in fib.prefix(25).enumerated() {
            data += [UInt8](repeating: UInt8(symbol * 7), count: min(count, 50_000))
        }
        var state: UInt64 = 3
        for i in stride(from: data.count - 1, to: 0, by: -1) {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            data.swapAt(i, Int(state >> 33) % (i + 1))
        }
        _ = try roundTrip(data, "Fibonacci literals")
        // One symbol, or none, still makes a complete code of two.
        XCTAssertEqual(Deflate.codeLengths([0, 5, 0], limit: 15).filter { $0 > 0 }.count, 2)
        XCTAssertEqual(Deflate.codeLengths([0, 0, 0], limit: 15).filter { $0 > 0 }.count, 2)
    }
}
