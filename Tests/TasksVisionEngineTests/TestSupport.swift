import Foundation
@testable import TasksVisionEngine
import TasksVisionFormat
import XCTest

/// Paths of the repository, its models and fixtures, and ../shared test data.
enum TestPaths {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let models = root + "/Models"
    static let fixtures = root + "/Tests/Fixtures"
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")

    /// A model in Models/, failing the test with set-up instructions when it is missing.
    static func model(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = models + "/" + name
        let (filePath, _) = ModelAsset.splitPath(path)
        guard FileManager.default.fileExists(atPath: filePath) else {
            XCTFail("missing \(filePath): run tools/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }
}

/// The splitmix64-based generator shared with tools/reference_engine.py (`random_floats`).
func fixtureRandomFloats(seed: UInt64, count: Int, low: Float, high: Float) -> [Float] {
    (0..<count).map { i in
        var z = seed &* (1 << 32) &+ UInt64(i) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z = z ^ (z >> 31)
        let u = Float(z >> 40) * (1.0 / Float(1 << 24))
        return low + (high - low) * u
    }
}

/// What the kernel tests share: buffers that live for a test, seeded random values, and a
/// one-thread run context with scratch.
class KernelTestCase: XCTestCase {
    /// Owns a buffer for the duration of a test.
    final class Buffer {
        let pointer: UnsafeMutablePointer<Float>
        let count: Int
        init(_ values: [Float]) {
            count = values.count
            pointer = .allocate(capacity: max(values.count, 1))
            pointer.initialize(from: values, count: values.count)
        }
        init(zeros count: Int) {
            self.count = count
            pointer = .allocate(capacity: max(count, 1))
            pointer.initialize(repeating: .nan, count: max(count, 1))
        }
        deinit { pointer.deallocate() }
        var values: [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
    }

    /// The seed of the next `random` call; each call takes the next one.
    var seed: UInt64 = 1
    /// The range of `random` when none is given.
    var defaultRange: (Float, Float) { (-1, 1) }
    func random(_ n: Int, _ lo: Float? = nil, _ hi: Float? = nil) -> [Float] {
        seed += 1
        return fixtureRandomFloats(seed: seed, count: n, low: lo ?? defaultRange.0, high: hi ?? defaultRange.1)
    }

    let context: RunContext = {
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 1 << 22)
        return RunContext(threads: 1, scratch: scratch, scratchFloatsPerWorker: 1 << 21)
    }()

    /// Three threads (two helpers), for the layers' splits over threads: each must give the
    /// one-thread context's bits.
    lazy var threaded: RunContext = {
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 3 << 21)
        return RunContext(threads: 3, scratch: scratch, scratchFloatsPerWorker: 1 << 21,
                          pool: makeWorkerPool(helpers: 2))
    }()
    private var usedThreaded = false

    override func tearDown() {
        if usedThreaded { threaded.pool?.stop(); threaded.scratch.deallocate(); usedThreaded = false }
        super.tearDown()
    }

    /// Runs `layer` on three threads and returns its output (`count` floats at `output`).
    func runThreaded(_ layer: Layer, output: UnsafeMutablePointer<Float>, count: Int) -> [Float] {
        usedThreaded = true
        output.update(repeating: .nan, count: count)
        layer.run(threaded)
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    deinit { context.scratch.deallocate() }

    /// A depthwise convolution as XNNPACK sums it (`chain`: from the bias, taps column by column (`c.dilation`
    /// inputs apart), each a fused multiply-add; taps outside the image left out) and with each product rounded
    /// first (`plain`), before any activation; output channel `o` reads input `o / multiplier`.
    /// `twoChains`: the taps at odd places of the window's order (kx * k + ky) summed in a second chain from zero,
    /// added to the first at the end (XNNPACK's arm64 25-tap kernel, `f32-dwconv-25p8c-minmax-neonfma-acc2`).
    func depthwiseSums(_ c: KernelTests.ConvCase, multiplier: Int = 1, input: [Float], weights: [Float], bias: [Float],
                       twoChains: Bool = false)
        -> (chain: [Float], plain: [Float], oh: Int, ow: Int) {
        let cout = c.cin * multiplier
        let oh = (c.h + c.padTop + c.padBottom - c.span) / c.stride + 1,
            ow = (c.w + c.padLeft + c.padRight - c.span) / c.stride + 1
        var chain = [Float](repeating: 0, count: oh * ow * cout), plain = chain
        for oy in 0..<oh { for ox in 0..<ow { for o in 0..<cout {
            var acc = bias[o], acc2: Float = 0, sum = bias[o]
            for kx in 0..<c.k { for ky in 0..<c.k {
                let iy = oy * c.stride - c.padTop + ky * c.dilation, ix = ox * c.stride - c.padLeft + kx * c.dilation
                if iy < 0 || iy >= c.h || ix < 0 || ix >= c.w { continue }
                let x = input[(iy * c.w + ix) * c.cin + o / multiplier], w = weights[(ky * c.k + kx) * cout + o]
                if twoChains && (kx * c.k + ky) % 2 == 1 { acc2 = acc2.addingProduct(x, w) } else {
                    acc = acc.addingProduct(x, w)
                }
                sum = sum + x * w
            } }
            chain[(oy * ow + ox) * cout + o] = twoChains ? acc + acc2 : acc
            plain[(oy * ow + ox) * cout + o] = sum
        } } }
        return (chain, plain, oh, ow)
    }
}
