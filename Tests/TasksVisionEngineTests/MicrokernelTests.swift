@testable import TasksVisionEngine
import TasksVisionFormat
import TasksVisionKernels
import XCTest

/// The FMA kernel sets against a scalar reference of XNNPACK's sums, bit for bit: every
/// convolution, fully connected and depthwise output one chain of fused multiply-adds from the
/// bias, in XNNPACK's order (k in order for GEMMs: taps row by row and channels within; depthwise
/// taps column by column). Runs every set this CPU supports, so one machine checks all of its
/// sets; shapes cover row tails of the 6-row tiles, column tails of every tile width, narrow and
/// wide layers (each set's one- and two-vector tiles, and the AVX2 kernels the AVX-512 set lends
/// for layers narrower than its vectors), padding, strides 1 to 3, 3x3 and 5x5 and other sizes.
final class MicrokernelTests: KernelTestCase {
    /// Values with full 24-bit significands over a wider range, so that a product rounded before
    /// its add shows.
    override var defaultRange: (Float, Float) { (-3, 3) }

    /// The FMA sets this CPU runs (each test fails loudly if there are none on an FMA CPU).
    var fmaSets: [KernelSet] { KernelSet.supported().filter(\.fusesMultiplyAdd) }
    /// The same and the arm64 set, whose kernels are plain Swift vectors that run on any processor (on baseline
    /// x86-64, each fused multiply-add a call to fmaf): every machine checks their order.
    var fmaSetsAndNEON: [KernelSet] { fmaSets.contains(.neon) ? fmaSets : fmaSets + [.neon] }

    func testKernelSetsFollowTheCPU() {
        let features = CPUFeatures.current
        print("CPU: \(features.modelName); kernel sets: \(KernelSet.supported().map(\.rawValue))")
        #if arch(x86_64)
        XCTAssertEqual(KernelSet.avx2.isSupported(), features.flags.contains("avx2") && features.flags.contains("fma"))
        XCTAssertEqual(KernelSet.avx512.isSupported(), features.hasAVX512)
        XCTAssertFalse(KernelSet.neon.isSupported())
        #endif
        XCTAssertTrue(KernelSet.portable.isSupported())
        XCTAssertEqual(KernelSet.best(), KernelSet.supported().first)
    }

    func testCPUFeaturesParsing() {
        let zen3 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel name\t: AMD EPYC 7B13\n"
                   + "flags\t\t: fpu sse2 avx fma avx2 bmi2\n\nprocessor\t: 1\ncpu family\t: 7\nflags\t\t: x\n"
        let f = CPUFeatures.parse(cpuinfo: zen3)
        XCTAssertEqual(f.modelName, "AMD EPYC 7B13")
        XCTAssertEqual(f.vendor, "AuthenticAMD")
        XCTAssertEqual(f.family, 25)
        XCTAssertTrue(f.hasAVX2FMA)
        let n1 = "processor\t: 0\nFeatures\t: fp asimd evtstrm\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
                 + "CPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n"
        let arm = CPUFeatures.parse(cpuinfo: n1)
        XCTAssertEqual(arm.armImplementer, 0x41)
        XCTAssertEqual(arm.armPart, 0xd0c)
        XCTAssertTrue(arm.oneRowGEMMSumsInPairs, "Neoverse N1")
        XCTAssertFalse(CPUFeatures.parse(cpuinfo: n1.replacingOccurrences(of: "0xd0c", with: "0xd40"))
                        .oneRowGEMMSumsInPairs, "Neoverse V1")
        XCTAssertFalse(f.hasAVX512)
        XCTAssertFalse(f.halvesWideVectors, "Zen 3: no AVX-512")
        XCTAssertFalse(CPUFeatures.parse(cpuinfo: "flags : sse2 avx2\n").hasAVX2FMA, "AVX2 without FMA")
        // The first Zen (cpuinfo's `zen`: family 23, models 00h-1Fh) and no later one takes XNNPACK's rotated quads.
        let naples = CPUFeatures.parse(cpuinfo: zen3.replacingOccurrences(of: "cpu family\t: 25\n",
                                                                          with: "cpu family\t: 23\nmodel\t\t: 1\n"))
        XCTAssertEqual(naples.model, 1)
        XCTAssertTrue(naples.gemmSumsRotatedQuads, "Zen 1")
        XCTAssertTrue(CPUFeatures(flags: f.flags, vendor: "AuthenticAMD", family: 23, model: 0x18).gemmSumsRotatedQuads,
                      "Zen+ (Picasso)")
        XCTAssertFalse(CPUFeatures(flags: f.flags, vendor: "AuthenticAMD", family: 23, model: 0x31).gemmSumsRotatedQuads,
                       "Zen 2 (Rome)")
        XCTAssertFalse(f.gemmSumsRotatedQuads, "Zen 3")
        XCTAssertFalse(CPUFeatures(flags: f.flags, vendor: "HygonGenuine", family: 24, model: 1).gemmSumsRotatedQuads,
                       "Hygon Dhyana: cpuinfo does not decode it")
        // Behaving as another CPU keeps only the flags both have: never an instruction this one lacks.
        let asNaples = naples.running(on: CPUFeatures(flags: ["sse2", "avx2"]))
        XCTAssertEqual(asNaples.flags, ["sse2", "avx2"])
        XCTAssertEqual(asNaples.family, 23)
        XCTAssertFalse(asNaples.hasAVX2FMA)
        let avx512Flags = "flags : avx2 fma avx512f avx512dq avx512bw avx512vl avx512cd\n"
        let xeon = CPUFeatures.parse(cpuinfo: "vendor_id : GenuineIntel\ncpu family : 6\n" + avx512Flags)
        XCTAssertTrue(xeon.hasAVX512)
        XCTAssertFalse(xeon.halvesWideVectors)
        XCTAssertTrue(CPUFeatures.parse(cpuinfo: "vendor_id : AuthenticAMD\ncpu family : 25\n" + avx512Flags)
                        .halvesWideVectors, "Zen 4")
        XCTAssertFalse(CPUFeatures.parse(cpuinfo: "vendor_id : AuthenticAMD\ncpu family : 26\n" + avx512Flags)
                        .halvesWideVectors, "Zen 5: whole 512-bit units")
        #if arch(x86_64)
        XCTAssertEqual(KernelSet.best(for: f), .avx2)
        XCTAssertEqual(KernelSet.best(for: xeon), .avx512)
        XCTAssertEqual(KernelSet.best(for: CPUFeatures(flags: ["sse2"])), .portable)
        // Never a set the CPU lacks, however it is asked for.
        XCTAssertThrowsError(try KernelSet.fromEnvironment([KernelSet.environmentVariable: "avx512"],
                                                           features: f)) { error in
            XCTAssertEqual(error as? KernelSetError, .unsupported(.avx512, supported: [.avx2, .portable]))
            XCTAssertTrue("\(error)".contains("avx512"), "\(error)")
        }
        XCTAssertEqual(try KernelSet.fromEnvironment([KernelSet.environmentVariable: "AVX2"], features: f), .avx2)
        XCTAssertEqual(try KernelSet.fromEnvironment([:], features: f), .avx2)
        #endif
        XCTAssertThrowsError(try KernelSet.fromEnvironment([KernelSet.environmentVariable: "sse9"])) { error in
            XCTAssertTrue("\(error)".contains("unknown kernel set 'sse9'"), "\(error)")
        }
    }

    /// Tile widths per column count (a choice of speed only: every tile sums as XNNPACK does). The widest tile once
    /// the columns fill one, unless a quarter or more of it would be padding that one-vector tiles avoid.
    func testGEMMTileChoice() {
        func widths(_ set: KernelSet, _ columns: [Int]) -> [Int] {
            // A CPU of no known vendor: the set's own choice (see `halving` below for Zen 4's).
            let neutral = Microkernels(set, features: CPUFeatures(flags: CPUFeatures.current.flags))
            return columns.map { neutral.gemm(columns: $0)?.nr ?? 0 }
        }
        XCTAssertEqual(widths(.avx2, [4, 8, 12, 16, 17, 20, 24, 25, 32, 36, 40, 144]),
                       [8, 8, 16, 16, 8, 8, 8, 16, 16, 16, 16, 16])
        XCTAssertEqual(widths(.avx512, [8, 16, 24, 32, 40, 48, 56, 64, 144]), [8, 16, 32, 32, 16, 16, 32, 32, 32])
        // Where 512-bit instructions run as two halves (Zen 4), 32-wide tiles with 8 to 15 lanes left empty give way
        // to the AVX2 tiles; every other column count keeps the AVX-512 choice.
        let halving = CPUFeatures(flags: ["avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd"],
                                  vendor: "AuthenticAMD", family: 25)
        let zen4 = Microkernels(.avx512, features: halving)
        let zen4Columns = [8, 16, 20, 24, 32, 40, 48, 56, 64, 88, 120, 144]
        XCTAssertEqual(zen4Columns.map { zen4.gemm(columns: $0)?.nr ?? 0 },
                       [8, 16, 8, 8, 32, 16, 16, 16, 32, 16, 16, 32])
        XCTAssertEqual(zen4Columns.map { zen4.gemms(columns: $0).count }, [3, 3, 2, 2, 3, 3, 3, 2, 3, 2, 2, 3],
                       "the AVX2 table (two GEMMs) or the AVX-512 one (three)")
        XCTAssertEqual(widths(.portable, [24]), [0], "the portable set has no packed GEMM")
    }

    /// XNNPACK's choice of its `nr2` tiles for a fully connected layer (and a 1x1 convolution, which it runs as one),
    /// as measured on TFLite emulated as a first Zen (tools/compare_engine.py --emulate EPYC) and arm64.
    func testNR2Choice() {
        let zen1 = [8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 64, 1000]
        XCTAssertEqual(zen1.filter { Microkernels.usesNR2(nr: 16, nr2: 8, columns: $0) }, [8, 12, 20, 24, 36, 40])
        let arm = [1, 2, 4, 6, 9, 10, 12, 28, 36, 38, 39, 42, 63, 108]
        XCTAssertEqual(arm.filter { Microkernels.usesNR2(nr: 8, nr2: 2, columns: $0) },
                       [1, 2, 4, 6, 9, 10, 12, 28, 36, 38, 42, 108])
        XCTAssertFalse(Microkernels.usesNR2(nr: 16, nr2: 8, columns: 808), "8 columns of padding are under 1% of 808")
        guard fmaSets.contains(.avx2) else { return }
        let kernels = Microkernels(.avx2, features: Self.zen1)
        XCTAssertEqual(zen1.map { kernels.plainGEMM(columns: $0, rows: 3)?.rotatedQuads ?? false },
                       zen1.map { !Microkernels.usesNR2(nr: 16, nr2: 8, columns: $0) })
        XCTAssertEqual([12, 16, 20, 40].map { kernels.windowGEMM(columns: $0, rows: 9)?.rotatedQuads ?? false },
                       [false, true, true, true], "a KxK convolution takes `nr2` only below 16 columns")
        XCTAssertNil(Microkernels(.avx2, features: CPUFeatures(flags: CPUFeatures.current.flags)).rotatedQuadsGEMM)
    }

    func testInterpreterRefusesASetTheCPULacks() throws {
        guard let lacking = KernelSet.allCases.first(where: { !$0.isSupported() }) else { return }
        let path = try TestPaths.model("canned_gesture_classifier.tflite")
        XCTAssertThrowsError(try Interpreter(path: path, options: .init(kernels: lacking))) { error in
            XCTAssertTrue("\(error)".contains("kernel set '\(lacking)'"), "\(error)")
        }
        for set in KernelSet.supported() {
            XCTAssertEqual(try Interpreter(path: path, options: .init(kernels: set)).kernelSet, set)
        }
    }

    /// Whether a 1x1 convolution or fully connected layer of `columns` columns sums in lane chains on arm64 (TFLite's
    /// arm64 build gives it its two-column kernel, measured with tools/arm64_check.sh): columns neither a multiple of
    /// 8 nor one short of one.
    static func takesLaneChains(columns: Int) -> Bool { columns % 8 != 0 && columns % 8 != 7 }

    /// XNNPACK's one-row sum on the arm64 cores whose `1x8` kernel keeps two chains: even k from the bias, odd k from
    /// zero, added.
    static func pairChains(_ x: ArraySlice<Float>, _ w: ArraySlice<Float>, bias: Float) -> Float {
        var even = bias, odd: Float = 0
        for (i, (x, w)) in zip(x, w).enumerated() {
            if i % 2 == 0 { even = even.addingProduct(x, w) } else { odd = odd.addingProduct(x, w) }
        }
        return even + odd
    }

    /// An arm64 core whose one-row GEMM sums in two chains (Neoverse N1).
    static let neoverseN1 = CPUFeatures(flags: ["asimd"], armImplementer: 0x41, armPart: 0xd0c)

    /// That kernel's sum: whole blocks of four products in four lane chains by k mod 4, lane 0 from the bias, added
    /// as (l0 + l1) + (l2 + l3); the last k mod 4 products chained onto that.
    static func laneChains(_ x: ArraySlice<Float>, _ w: ArraySlice<Float>, bias: Float) -> Float {
        var lanes: [Float] = [bias, 0, 0, 0]
        let xs = Array(x), ws = Array(w), whole = xs.count / 4 * 4
        for i in 0..<whole { lanes[i % 4] = lanes[i % 4].addingProduct(xs[i], ws[i]) }
        var s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
        for i in whole..<xs.count { s = s.addingProduct(xs[i], ws[i]) }
        return s
    }

    /// The first Zen (an EPYC 7001, family 23 model 1), with this CPU's flags.
    static let zen1 = CPUFeatures(flags: CPUFeatures.current.flags, vendor: "AuthenticAMD", family: 23, model: 1)

    /// The order in which XNNPACK's rotated-quads kernels (the first Zen's) sum `count` floats of a tap for output
    /// column `column`: each group of four from its k = column mod 4, wrapping round.
    static func rotatedQuadOrder(count: Int, column: Int) -> [Int] {
        stride(from: 0, to: count, by: 4).flatMap { g in (0..<4).map { g + (column + $0) % 4 }.filter { $0 < count } }
    }

    /// A 2-D convolution as XNNPACK sums it (`chain`) and with each product rounded (`plain`); `lanes`: a 1x1
    /// convolution summed as `laneChains`; `pairs`: each tap's channels as `pairChains`, the two chains running on
    /// across taps (arm64's one-row GEMM and IGEMM); `rotated`: each tap's channels in `rotatedQuadOrder`.
    func reference(_ c: KernelTests.ConvCase, _ input: [Float], _ weights: [Float], _ bias: [Float], residual: [Float]?,
                   alpha: [Float]?, lanes: Bool = false, pairs: Bool = false, rotated: Bool = false)
        -> (chain: [Float], plain: [Float], oh: Int, ow: Int) {
        let oh = (c.h + c.padTop + c.padBottom - c.k) / c.stride + 1,
            ow = (c.w + c.padLeft + c.padRight - c.k) / c.stride + 1
        var chain = [Float](repeating: 0, count: oh * ow * c.cout), plain = chain
        let (lo, hi) = Epilogue(activation: c.act).bounds
        for oy in 0..<oh { for ox in 0..<ow { for o in 0..<c.cout {
            var acc = bias[o], sum = bias[o], odd: Float = 0
            for ky in 0..<c.k { for kx in 0..<c.k {
                let iy = oy * c.stride - c.padTop + ky, ix = ox * c.stride - c.padLeft + kx
                if iy < 0 || iy >= c.h || ix < 0 || ix >= c.w { continue }
                for i in rotated ? Self.rotatedQuadOrder(count: c.cin, column: o) : Array(0..<c.cin) {
                    let x = input[(iy * c.w + ix) * c.cin + i], w = weights[((o * c.k + ky) * c.k + kx) * c.cin + i]
                    if pairs && i % 2 == 1 { odd = odd.addingProduct(x, w) } else { acc = acc.addingProduct(x, w) }
                    sum = sum + x * w
                }
            } }
            if pairs { acc = acc + odd }
            let at = (oy * ow + ox) * c.cout + o
            let pixel = (oy * c.w + ox) * c.cin
            if lanes {
                acc = Self.laneChains(input[pixel..<pixel + c.cin], weights[o * c.cin..<(o + 1) * c.cin], bias: bias[o])
            }
            func finish(_ v: Float) -> Float {
                var v = v
                if let residual { v += residual[at] }
                v = min(max(v, lo), hi)
                if let alpha, v < 0 { v *= alpha[o] }
                return v
            }
            chain[at] = finish(acc)
            plain[at] = finish(sum)
        } } }
        return (chain, plain, oh, ow)
    }

    func testConvolutionsAreXNNPACKChains() {
        typealias C = KernelTests.ConvCase
        let rowBlocks = C(h: 10, w: 10, cin: 1200, cout: 40, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                          padRight: 0)
        let cases: [(C, Bool, Bool)] = [
            (C(h: 1, w: 1, cin: 3, cout: 5, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0), false,
             false),
            (C(h: 7, w: 9, cin: 13, cout: 11, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu6), true, false),
            (C(h: 9, w: 7, cin: 3, cout: 17, k: 3, stride: 2, padTop: 1, padLeft: 0, padBottom: 1, padRight: 1,
               act: .relu), false, false),
            (C(h: 12, w: 11, cin: 3, cout: 32, k: 5, stride: 2, padTop: 1, padLeft: 2, padBottom: 2, padRight: 1),
             false, true),
            (C(h: 13, w: 12, cin: 11, cout: 1, k: 3, stride: 2, padTop: 1, padLeft: 0, padBottom: 1, padRight: 1),
             false, false),
            (C(h: 33, w: 40, cin: 8, cout: 8, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu), true, true),
            (C(h: 30, w: 29, cin: 3, cout: 24, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
             false, false),
            (C(h: 25, w: 23, cin: 400, cout: 90, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
             true, false),
            (C(h: 20, w: 20, cin: 40, cout: 96, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
               act: .reluN1To1), false, false),
            (C(h: 7, w: 7, cin: 112, cout: 400, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu6), false, true),
            (C(h: 5, w: 6, cin: 7, cout: 40, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0), true,
             true),
            // 23 columns: one short of a multiple of 8, one chain on arm64 too.
            (C(h: 6, w: 7, cin: 21, cout: 23, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0), false,
             false),
            // Split over threads in row items finer than the 96-row tiles.
            (C(h: 24, w: 24, cin: 32, cout: 64, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu), true, false),
            // KxK tiles of several output rows, their padded pixels gathered into one product per tile.
            (C(h: 40, w: 40, cin: 3, cout: 16, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
               act: .relu6), false, false),
            (C(h: 48, w: 48, cin: 3, cout: 32, k: 3, stride: 2, padTop: 0, padLeft: 0, padBottom: 1, padRight: 1),
             false, true),
            // A residual is read by row index: padded pixels one run at a time.
            (C(h: 14, w: 13, cin: 5, cout: 20, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1), true,
             false),
            // Residual tiles (one segment, no PReLU): a last tile of one vector and one of a vector and a few lanes.
            (C(h: 16, w: 16, cin: 24, cout: 24, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu), true, false),
            (C(h: 9, w: 11, cin: 16, cout: 45, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0), true,
             false),
            // Rows of A larger than a row block (100 rows of 1200 floats: blocks of 54 and 46 rows across 16-column
            // panels), plain and through the general epilogue.
            (rowBlocks, false, false), (rowBlocks, true, true),
            // Deep rows (weights of a column block beyond L1) with a residual; on AVX-512 the last 16 columns take
            // the one-vector tail.
            (C(h: 14, w: 14, cin: 480, cout: 80, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu6), true, false),
            // One output pixel: a single row across groups of column blocks (the last group partial), its window
            // read in place in two segments, with and without residual and PReLU, on two- and one-vector tiles.
            (C(h: 2, w: 2, cin: 40, cout: 117, k: 2, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0), true,
             true),
            (C(h: 2, w: 2, cin: 9, cout: 20, k: 2, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu),
             false, false),
            (C(h: 1, w: 1, cin: 70, cout: 200, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu6),
             true, false),
            // One output pixel under padding (3x3 over one input pixel, through im2col), odd channels per tap.
            (C(h: 1, w: 1, cin: 7, cout: 24, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1), false,
             false),
            // One output channel over 4096 pixels or more, stride 1: the one-channel row kernel (a last partial
            // vector of pixels; channels not a multiple of 4; a 1x1 kernel). With a residual, or stride 2 across,
            // the GEMM of one column.
            (C(h: 64, w: 65, cin: 8, cout: 1, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
               act: .relu), false, false),
            (C(h: 129, w: 66, cin: 11, cout: 1, k: 3, stride: 1, padTop: 1, padLeft: 0, padBottom: 1, padRight: 1),
             false, false),
            (C(h: 64, w: 70, cin: 16, cout: 1, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
               act: .relu6), false, false),
            (C(h: 64, w: 64, cin: 4, cout: 1, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1), true,
             false),
            (C(h: 140, w: 140, cin: 3, cout: 1, k: 5, stride: 2, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2),
             false, false),
        ]
        XCTAssertFalse(fmaSets.isEmpty && CPUFeatures.current.hasAVX2FMA, "an FMA CPU runs an FMA set")
        // On AVX-512, both the CPU-neutral tile choice and that of a CPU which halves 512-bit instructions (Zen 4: the
        // AVX2 tiles for some column counts), whatever the CPU running the test. The NEON kernels on every machine
        // (plain Swift vectors): one chain, as XNNPACK on arm64, but for the 1x1 convolutions that sum in lane chains
        // there (`takesLaneChains`).
        let variants = fmaSetsAndNEON.flatMap { set -> [(KernelSet, Microkernels)] in
            guard set == .avx512 else { return [(set, Microkernels(set))] }
            let flags = CPUFeatures.current.flags
            return [(set, Microkernels(set, features: CPUFeatures(flags: flags, vendor: "GenuineIntel", family: 6))),
                    (set, Microkernels(set, features: CPUFeatures(flags: flags, vendor: "AuthenticAMD", family: 25)))]
        } + [(KernelSet.neon, Microkernels(.neon, features: Self.neoverseN1))]
            + (fmaSets.contains(.avx2) ? [(KernelSet.avx2, Microkernels(.avx2, features: Self.zen1))] : [])
        for (set, kernels) in variants {
            var oneChannelCases = 0
            for (c, withResidual, withAlpha) in cases {
                let input = random(c.h * c.w * c.cin), weights = random(c.cout * c.k * c.k * c.cin, -1, 1),
                    bias = random(c.cout)
                let oh = (c.h + c.padTop + c.padBottom - c.k) / c.stride + 1,
                    ow = (c.w + c.padLeft + c.padRight - c.k) / c.stride + 1
                let residual = withResidual ? random(oh * ow * c.cout) : nil,
                    alpha = withAlpha ? random(c.cout, 0, 0.5) : nil
                // The arm64 set's 1x1 convolutions that XNNPACK sums in lane chains there (`takesLaneChains`).
                let pointwise = c.k == 1 && c.stride == 1 && c.padTop + c.padLeft + c.padBottom + c.padRight == 0
                let lanes = set == .neon && pointwise && Self.takesLaneChains(columns: c.cout)
                // Two chains on arm64: a 1x1 convolution of one pixel on a core whose one-row GEMM sums so; a KxK
                // one (XNNPACK's IGEMM) of one pixel or fewer than 8 output channels on every core, per tap.
                let pairs = !lanes && set == .neon
                    && (pointwise ? oh * ow == 1 && kernels.oneRowPairsGEMM != nil : oh * ow == 1 || c.cout < 8)
                // The first Zen: rotated quads from 16 columns, but for 1x1 convolutions that XNNPACK gives its
                // `nr2` tiles (see `testNR2Choice`).
                let rotated = kernels.rotatedQuadsGEMM != nil
                    && (pointwise ? !Microkernels.usesNR2(nr: 16, nr2: 8, columns: c.cout) : c.cout >= 16)
                let ref = reference(c, input, weights, bias, residual: residual, alpha: alpha, lanes: lanes,
                                    pairs: pairs, rotated: rotated)
                let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.chain.count)
                let rB = residual.map { Buffer($0) }, aB = alpha.map { Buffer($0) }
                let g = ConvGeometry(batch: 1, inH: c.h, inW: c.w, inC: c.cin, outH: oh, outW: ow, outC: c.cout,
                                     kH: c.k, kW: c.k,
                                     strideH: c.stride, strideW: c.stride, padTop: c.padTop, padLeft: c.padLeft)
                let layer = Conv2DLayer(geometry: g, input: inB.pointer, output: outB.pointer, weights: wB.pointer,
                                        epilogue: Epilogue(bias: bB.pointer,
                                                           residual: rB.map { UnsafePointer($0.pointer) },
                                                           activation: c.act,
                                                           alpha: aB.map { UnsafePointer($0.pointer) }),
                                        kernels: kernels)
                if layer.oneChannel != nil {
                    oneChannelCases += 1
                } else {
                    XCTAssertNotNil(layer.packed, "\(set) \(c): on the set's GEMM")
                }
                layer.run(context)
                let differ = zip(outB.values, ref.chain).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                XCTAssertEqual(differ, 0, "\(set) conv \(c): outputs that differ from XNNPACK's chain")
                let split = runThreaded(layer, output: outB.pointer, count: ref.chain.count)
                XCTAssertEqual(zip(split, ref.chain).filter { $0.0.bitPattern != $0.1.bitPattern }.count, 0,
                               "\(set) conv \(c) on three threads: outputs that differ from XNNPACK's chain")
                if c.cin * c.k * c.k >= 7 {
                    XCTAssertGreaterThan(zip(ref.plain, ref.chain).filter { $0.0 != $0.1 }.count, 0,
                                         "\(c): the check has teeth")
                }
                if lanes && c.cin >= 8 && ref.chain.count > 50 || pairs && !pointwise && ref.chain.count >= 20
                    || rotated && c.cin * c.k * c.k >= 8 && ref.chain.count > 50 {
                    let one = reference(c, input, weights, bias, residual: residual, alpha: alpha).chain
                    let kind = lanes ? "lane chains" : pairs ? "two chains" : "rotated quads"
                    XCTAssertGreaterThan(zip(one, ref.chain).filter { $0.0 != $0.1 }.count, 0,
                                         "\(c): one chain and \(kind) differ")
                }
            }
            // On arm64 the 1x1 one-channel case takes the lane-chain GEMM.
            XCTAssertEqual(oneChannelCases, set == .neon ? 2 : 3, "\(set): cases on the one-channel row kernel")
        }
    }

    func testFullyConnectedIsAnXNNPACKChain() {
        // The NEON kernels on every machine, on a neutral core and on one whose one-row GEMM sums in two chains.
        let variants = fmaSetsAndNEON.map { ($0, Microkernels($0)) }
            + [(KernelSet.neon, Microkernels(.neon, features: Self.neoverseN1))]
            + (fmaSets.contains(.avx2) ? [(KernelSet.avx2, Microkernels(.avx2, features: Self.zen1))] : [])
        for (set, kernels) in variants {
            for (rows, inputs, units) in [(1, 1, 1), (1, 64, 128), (1, 1024, 7), (3, 65, 33), (13, 300, 17), (7, 16, 8),
                                               (1, 63, 195), (1, 128, 300), (1, 40, 20), (3, 65, 48), (6, 30, 32)] {
                let x = random(rows * inputs), w = random(units * inputs, -1, 1), b = random(units)
                var ref = [Float](repeating: 0, count: rows * units)
                for r in 0..<rows { for u in 0..<units {
                    var acc = b[u]
                    for i in 0..<inputs { acc = acc.addingProduct(x[r * inputs + i], w[u * inputs + i]) }
                    let xs = x[r * inputs..<(r + 1) * inputs], ws = w[u * inputs..<(u + 1) * inputs]
                    if set == .neon && Self.takesLaneChains(columns: units) {
                        acc = Self.laneChains(xs, ws, bias: b[u])
                    } else if kernels.rotatedQuadsGEMM != nil && !Microkernels.usesNR2(nr: 16, nr2: 8, columns: units) {
                        acc = Self.rotatedQuadOrder(count: inputs, column: u).reduce(b[u]) {
                            $0.addingProduct(xs[xs.startIndex + $1], ws[ws.startIndex + $1])
                        }
                    } else if rows == 1 && kernels.oneRowPairsGEMM != nil {
                        acc = Self.pairChains(xs, ws, bias: b[u])
                    }
                    ref[r * units + u] = min(max(acc, 0), 6)
                } }
                let xB = Buffer(x), wB = Buffer(w), bB = Buffer(b), outB = Buffer(zeros: ref.count)
                let layer = FullyConnectedLayer(input: xB.pointer, weights: wB.pointer, output: outB.pointer,
                                                rows: rows, inputs: inputs,
                                                units: units, epilogue: Epilogue(bias: bB.pointer, activation: .relu6),
                                                kernels: kernels)
                layer.run(context)
                XCTAssertEqual(outB.values.map(\.bitPattern), ref.map(\.bitPattern),
                               "\(set) fully connected \(rows)x\(inputs)x\(units)")
                // (1x64x128: outputs inside the clamp.)
                if rows == 1 && inputs == 64 && units == 128 && kernels.oneRowPairsGEMM != nil {
                    let one = (0..<units).map { u in
                        min(max((0..<inputs).reduce(b[u]) { $0.addingProduct(x[$1], w[u * inputs + $1]) }, 0), 6)
                    }
                    XCTAssertNotEqual(one, ref, "\(rows)x\(inputs)x\(units): one chain and two differ")
                }
            }
        }
    }

    func testDepthwiseIsAnXNNPACKChain() {
        typealias C = KernelTests.ConvCase
        let cases: [C] = [
            C(h: 9, w: 10, cin: 13, cout: 13, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
              act: .relu6),
            C(h: 11, w: 12, cin: 42, cout: 42, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2),
            C(h: 12, w: 12, cin: 17, cout: 17, k: 5, stride: 2, padTop: 1, padLeft: 2, padBottom: 2, padRight: 1,
              act: .relu),
            C(h: 4, w: 23, cin: 24, cout: 24, k: 3, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
            C(h: 40, w: 37, cin: 8, cout: 8, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
            C(h: 38, w: 35, cin: 16, cout: 16, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2),
            C(h: 36, w: 41, cin: 37, cout: 37, k: 3, stride: 2, padTop: 0, padLeft: 1, padBottom: 1, padRight: 0,
              act: .relu6),
            C(h: 1, w: 1, cin: 5, cout: 5, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
            C(h: 17, w: 20, cin: 6, cout: 6, k: 5, stride: 3, padTop: 2, padLeft: 1, padBottom: 2, padRight: 2),
            C(h: 34, w: 34, cin: 3, cout: 3, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
            C(h: 35, w: 34, cin: 48, cout: 48, k: 4, stride: 2, padTop: 1, padLeft: 2, padBottom: 2, padRight: 1),
            // Few rows and many channels: on three threads, rows split into blocks of channels
            // (the last block not a whole number of vectors).
            C(h: 7, w: 7, cin: 200, cout: 200, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2,
              act: .relu6),
            C(h: 9, w: 8, cin: 72, cout: 72, k: 3, stride: 2, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
            // Groups of several vectors per pixel: border pixels and a row's last pixels with up to eight vectors
            // (the last block overlapping), interior groups of two.
            C(h: 6, w: 15, cin: 136, cout: 136, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
              act: .relu6),
            C(h: 10, w: 11, cin: 70, cout: 70, k: 3, stride: 2, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
            C(h: 5, w: 14, cin: 20, cout: 20, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        ]
        for set in fmaSetsAndNEON {
            for (index, c) in cases.enumerated() {
                let input = random(c.h * c.w * c.cin), weights = random(c.k * c.k * c.cin, -1, 1), bias = random(c.cin)
                let alpha: [Float]? = index % 3 == 1 ? random(c.cin, 0, 0.5) : nil
                let (lo, hi) = Epilogue(activation: c.act).bounds
                // XNNPACK's arm64 config gives windows of 10 to 25 taps its 25-tap kernel, which sums in two chains.
                let twoChains = set == .neon && (10...25).contains(c.k * c.k)
                let sums = depthwiseSums(c, input: input, weights: weights, bias: bias, twoChains: twoChains),
                    oh = sums.oh, ow = sums.ow
                func finish(_ v: Float, _ at: Int) -> Float {
                    var v = min(max(v, lo), hi)
                    if let alpha, v < 0 { v *= alpha[at % c.cin] }
                    return v
                }
                let ref = sums.chain.enumerated().map { finish($1, $0) },
                    plain = sums.plain.enumerated().map { finish($1, $0) }
                let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.count)
                let aB = alpha.map { Buffer($0) }
                let g = ConvGeometry(batch: 1, inH: c.h, inW: c.w, inC: c.cin, outH: oh, outW: ow, outC: c.cin, kH: c.k,
                                     kW: c.k,
                                     strideH: c.stride, strideW: c.stride, padTop: c.padTop, padLeft: c.padLeft)
                let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 1, input: inB.pointer, output: outB.pointer,
                                                 weights: wB.pointer,
                                                 epilogue: Epilogue(bias: bB.pointer, activation: c.act,
                                                                    alpha: aB.map { UnsafePointer($0.pointer) }),
                                                 kernels: Microkernels(set))
                XCTAssertNotNil(layer.rowKernel, "\(set) \(c): on the set's kernel")
                layer.run(context)
                let differ = zip(outB.values, ref).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                XCTAssertEqual(differ, 0, "\(set) depthwise \(c): outputs that differ from XNNPACK's chain")
                let split = runThreaded(layer, output: outB.pointer, count: ref.count)
                XCTAssertEqual(zip(split, ref).filter { $0.0.bitPattern != $0.1.bitPattern }.count, 0,
                               "\(set) depthwise \(c) on three threads: outputs that differ from XNNPACK's chain")
                if c.h * c.stride < 24 && c.cin >= 64 {
                    XCTAssertGreaterThan(layer.channelBlocks(threads: 3), 1, "\(c): rows split into channel blocks")
                }
                if ref.count > 50 {
                    XCTAssertGreaterThan(zip(plain, ref).filter { $0.0 != $0.1 }.count, 0, "\(c): the check has teeth")
                }
                if twoChains && ref.count > 50 {
                    let one = depthwiseSums(c, input: input, weights: weights, bias: bias).chain
                        .enumerated().map { finish($1, $0) }
                    XCTAssertGreaterThan(zip(one, ref).filter { $0.0 != $0.1 }.count, 0,
                                         "\(c): one chain and two differ")
                }
            }
        }
    }

    /// Depth multipliers take the layer's general path, which sums in the set's chains as well.
    func testDepthwiseWithAMultiplierSumsInTheSetsChains() {
        let c = KernelTests.ConvCase(h: 9, w: 11, cin: 5, cout: 10, k: 5, stride: 1, padTop: 2, padLeft: 2,
                                     padBottom: 2, padRight: 2)
        let input = random(c.h * c.w * c.cin), weights = random(25 * 10, -1, 1), bias = random(10)
        for set in fmaSetsAndNEON {
            let twoChains = set == .neon
            let ref = depthwiseSums(c, multiplier: 2, input: input, weights: weights, bias: bias,
                                    twoChains: twoChains).chain
            let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.count)
            let g = ConvGeometry(batch: 1, inH: c.h, inW: c.w, inC: c.cin, outH: c.h, outW: c.w, outC: 10, kH: 5, kW: 5,
                                 strideH: 1, strideW: 1, padTop: 2, padLeft: 2)
            let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 2, input: inB.pointer, output: outB.pointer,
                                             weights: wB.pointer, epilogue: Epilogue(bias: bB.pointer),
                                             kernels: Microkernels(set))
            XCTAssertNil(layer.rowKernel, "\(set): a multiplier takes the general path")
            layer.run(context)
            XCTAssertEqual(zip(outB.values, ref).filter { $0.0.bitPattern != $0.1.bitPattern }.count, 0,
                           "\(set) depthwise with multiplier 2: outputs that differ from XNNPACK's chains")
            if twoChains {
                let one = depthwiseSums(c, multiplier: 2, input: input, weights: weights, bias: bias).chain
                XCTAssertGreaterThan(zip(one, ref).filter { $0.0 != $0.1 }.count, 0, "one chain and two differ")
            }
        }
    }
}

/// `vision-bench --dwconv`'s measurement builds and runs the layer as an interpreter would, on every set.
final class DepthwiseMeasurementTests: XCTestCase {
    func testMeasuresValidShapesAndRefusesEmptyOnes() {
        for set in KernelSet.supported() {
            XCTAssertGreaterThan(set.measuredDepthwise(height: 9, width: 7, channels: 40, kernel: 3, stride: 2,
                                                       runs: 2) ?? 0,
                                 0, "\(set)")
            XCTAssertNil(set.measuredDepthwise(height: 0, width: 7, channels: 40, kernel: 3, stride: 1), "\(set)")
            XCTAssertNil(set.measuredDepthwise(height: 7, width: 7, channels: 40, kernel: 3, stride: 0), "\(set)")
        }
    }
}

/// XNNPACK's sigmoid and softmax pieces as the FMA sets compute them (bit-exactness against
/// XNNPACK itself is in the model parity fixtures: the pose flag, hand presence and handedness,
/// the gesture classifiers' probabilities).
final class XNNPACKElementwiseTests: XCTestCase {
    func testApproximationsStayWithinFourUlpOfTheTrueValues() {
        var x: Float = -30
        var differsFromTheFormula = 0
        while x < 30 {
            let exact = 1 / (1 + exp(-Double(x)))
            for s in [XNNPACKElementwise.sigmoidAVX2(x), XNNPACKElementwise.sigmoidAVX512(x)] {
                XCTAssertLessThanOrEqual(abs(Double(s) - exact), 4 * Double(Float(exact).ulp), "sigmoid(\(x))")
                if s != UnaryElementwiseLayer.logistic(x) { differsFromTheFormula += 1 }
            }
            if x <= 0 {
                let e = XNNPACKElementwise.expMinusMax(x)
                XCTAssertLessThanOrEqual(abs(Double(e) - exp(Double(x))), 4 * Double(Float(exp(Double(x))).ulp),
                                         "exp(\(x))")
            }
            x += 0.0137
        }
        XCTAssertGreaterThan(differsFromTheFormula, 100, "the approximations are not the plain formula")
        XCTAssertEqual(XNNPACKElementwise.expMinusMax(-88), 0, "below the denormal cutoff")
        XCTAssertEqual(XNNPACKElementwise.sigmoidAVX512(.infinity), 1)
        XCTAssertEqual(XNNPACKElementwise.sigmoidAVX512(-.infinity), 0)
    }

    func testSumFollowsTheKernelsOrder() {
        // 40 values whose sum depends on the order, in the AVX-512 kernel's: fewer than a 64-value
        // block, so two single vectors, then the 8-value tail, then the lanes halved pairwise.
        var v = [Float](repeating: 0, count: 40)
        for i in 0..<40 { v[i] = Float(i + 1).squareRoot() * 1000.123 }
        var lanes = [Float](repeating: 0, count: 16)
        for i in 0..<32 { lanes[i % 16] += v[i] }
        for i in 32..<40 { lanes[i - 32] += v[i] }
        var width = 16
        while width > 1 { width /= 2; for l in 0..<width { lanes[l] += lanes[l + width] } }
        let sum = v.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { XNNPACKElementwise.sum($0, count: 40, lanes: 16) } ?? 0
        }
        XCTAssertEqual(sum.bitPattern, lanes[0].bitPattern)
        XCTAssertNotEqual(sum, v.reduce(0, +), "the order matters for these values")
    }

    /// Far inputs, where the AVX-512 kernel's overflows and `vscalefps`'s special cases decide the
    /// result. Expected values: XNNPACK's own `avx2_rr1_p5_div_u16` and
    /// `avx512f_rr2_lut32_p2_perm2_scalef_div_u64`, compiled from its source and run on a Zen 4
    /// (which also matched these functions on all 2^32 inputs). Its AVX-512 kernel gives NaN for
    /// 1e30: the reference's value, kept.
    func testFarInputsAsXNNPACKsKernels() {
        let cases: [(x: Float, avx2: Float, avx512: Float)] = [
            (1e30, 1, .nan), (-1e30, 0, .nan), (3e38, 1, 1), (-3e38, 0, 0),
            (.greatestFiniteMagnitude, 1, 1), (-.greatestFiniteMagnitude, 0, 0),
            (88, 1, 1), (-88, 0, 0x1.07b71p-127), (-100, 0, Float(bitPattern: 27)), (-87.5, 0, 0x1.b2cafp-127),
            (-103, 0, 0x1p-149), (-104, 0, 0), (1e10, 1, 1), (-1e10, 0, 0), (.infinity, 1, 1), (-.infinity, 0, 0),
        ]
        for c in cases {
            for (name, got, want) in [("avx2", XNNPACKElementwise.sigmoidAVX2(c.x), c.avx2),
                                      ("avx512", XNNPACKElementwise.sigmoidAVX512(c.x), c.avx512)] {
                XCTAssert(got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN),
                          "\(name) sigmoid(\(c.x)) = \(got), XNNPACK gives \(want)")
            }
        }
        XCTAssert(XNNPACKElementwise.sigmoidAVX512(.nan).isNaN && XNNPACKElementwise.sigmoidAVX2(.nan).isNaN)
    }

    /// The arm64 kernels (`neonfma_rr1_lut64_p2_nr2recps` sigmoid, `neonfma_rr1_lut64_p2` softmax with flush-to-zero)
    /// against TFLite's arm64 build: Tests/Fixtures/engine/arm64_elementwise.json, from
    /// tools/reference_elementwise.py on an emulated Neoverse V1 (specials, far and subnormal inputs, softmax
    /// rows of 1 to 64 values and one whose smallest output flushes to zero).
    func testNEONSigmoidAndSoftmaxAreTFLiteArm64s() throws {
        let url = URL(fileURLWithPath: TestPaths.fixtures + "/engine/arm64_elementwise.json")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        func floats(_ v: Any?) -> [Float] { ((v as? [Any]) ?? []).map { Float(bitPattern: UInt32(($0 as? Int) ?? 0)) } }
        let sigmoid = json?["sigmoid"] as? [String: Any]
        let xs = floats(sigmoid?["x"]), ys = floats(sigmoid?["y"])
        XCTAssertGreaterThan(xs.count, 1000)
        XCTAssertEqual(xs.count, ys.count)
        var differ = 0
        for (x, y) in zip(xs, ys) where XNNPACKElementwise.sigmoidNEON(x).bitPattern != y.bitPattern {
            differ += 1
            if differ < 5 { XCTFail("sigmoid(\(x)) = \(XNNPACKElementwise.sigmoidNEON(x)), TFLite arm64 gives \(y)") }
        }
        XCTAssertEqual(differ, 0)
        XCTAssertGreaterThan(zip(xs, ys).filter { XNNPACKElementwise.sigmoidAVX2($0.0) != $0.1 }.count, 100,
                             "the x86 kernels give other bits")
        let rows = (json?["softmax"] as? [[String: Any]]) ?? []
        XCTAssertGreaterThan(rows.count, 10)
        for row in rows {
            let x = floats(row["x"]), want = floats(row["y"])
            var got = [Float](repeating: .nan, count: x.count)
            x.withUnsafeBufferPointer { xb in
                got.withUnsafeMutableBufferPointer { yb in
                    if let xp = xb.baseAddress, let yp = yb.baseAddress {
                        XNNPACKElementwise.Variant.neon.softmax(xp, yp, count: x.count)
                    }
                }
            }
            XCTAssertEqual(got.map(\.bitPattern), want.map(\.bitPattern), "softmax of \(x.count) values")
        }
        XCTAssertEqual(rows.last.map { floats($0["y"]).last }, 0, "an output below 2^-126 flushed to zero")
        XCTAssertEqual(Microkernels(.neon).elementwise, .neon)
    }

    /// The x86 kernels (AVX-512 and AVX2 sigmoid and softmax exponential) against TFLite's x86 build as interpreters
    /// run them, with subnormals flushed (`withSubnormalsFlushed`, XNNPACK's FTZ/DAZ): Tests/Fixtures/engine/
    /// x86_avx512_elementwise.json from tools/reference_elementwise.py on this Zen 4, x86_avx2_elementwise.json under
    /// qemu as a Zen 3 (XNNPACK's AVX2 kernels). Among them, exponentials near 2^-125 whose polynomial term passes
    /// below 2^-126, which the flush makes zero, and a softmax output flushed to zero.
    func testX86SigmoidAndSoftmaxAreTFLites() throws {
        #if arch(x86_64)
        func floats(_ v: Any?) -> [Float] { ((v as? [Any]) ?? []).map { Float(bitPattern: UInt32(($0 as? Int) ?? 0)) } }
        for (variant, file) in [(XNNPACKElementwise.Variant.avx512, "x86_avx512"), (.avx2, "x86_avx2")] {
            let url = URL(fileURLWithPath: TestPaths.fixtures + "/engine/\(file)_elementwise.json")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
            let sigmoid = json?["sigmoid"] as? [String: Any]
            let xs = floats(sigmoid?["x"]), ys = floats(sigmoid?["y"])
            XCTAssertGreaterThan(xs.count, 1500)
            XCTAssertEqual(xs.count, ys.count)
            let flushed = withSubnormalsFlushed { xs.map(variant.sigmoid) }
            let differ = zip(flushed, ys).filter { $0.bitPattern != $1.bitPattern }
            XCTAssertEqual(differ.count, 0, "\(file) sigmoid: \(differ.prefix(4)) (ours, TFLite's)")
            let rows = (json?["softmax"] as? [[String: Any]]) ?? []
            XCTAssertGreaterThan(rows.count, 15)
            var unflushedDiffer = 0
            for row in rows {
                let x = floats(row["x"]), want = floats(row["y"])
                func softmax() -> [Float] {
                    var got = [Float](repeating: .nan, count: x.count)
                    x.withUnsafeBufferPointer { xb in
                        got.withUnsafeMutableBufferPointer { yb in
                            if let xp = xb.baseAddress, let yp = yb.baseAddress { variant.softmax(xp, yp, count: x.count) }
                        }
                    }
                    return got
                }
                XCTAssertEqual(withSubnormalsFlushed(softmax).map(\.bitPattern), want.map(\.bitPattern),
                               "\(file) softmax of \(x.prefix(6)) (\(x.count) values)")
                if softmax().map(\.bitPattern) != want.map(\.bitPattern) { unflushedDiffer += 1 }
            }
            XCTAssertGreaterThan(unflushedDiffer, 2, "\(file): rows whose bits depend on the flush")
        }
        #endif
    }

    /// The sigmoid and softmax variant is the CPU's on x86 (XNNPACK's config), not the forced set's, the portable set
    /// included; arm64 has one.
    func testVariantFollowsTheCPU() {
        let avx2CPU = CPUFeatures(flags: ["sse2", "avx", "avx2", "fma"])
        let avx512CPU = CPUFeatures(flags: avx2CPU.flags.union(["avx512f", "avx512dq", "avx512bw", "avx512vl",
                                                                "avx512cd"]))
        #if arch(x86_64)
        XCTAssertEqual(Microkernels(.avx2, features: avx512CPU).elementwise, .avx512)
        XCTAssertEqual(Microkernels(.avx512, features: avx512CPU).elementwise, .avx512)
        XCTAssertEqual(Microkernels(.avx2, features: avx2CPU).elementwise, .avx2)
        XCTAssertEqual(Microkernels(.avx2, features: avx2CPU).elementwise?.lanes, 8)
        XCTAssertEqual(Microkernels(.avx2, features: avx512CPU).elementwise?.lanes, 16)
        #endif
        XCTAssertEqual(Microkernels(.portable, features: avx512CPU).elementwise, .avx512,
                       "the portable set too: TFLite on the CPU runs them whatever set is forced")
        XCTAssertNil(Microkernels(.portable, features: CPUFeatures(flags: ["sse2", "avx"])).elementwise,
                     "the portable formulas on an x86 CPU without AVX2")
        XCTAssertEqual(Microkernels(.neon, features: CPUFeatures(flags: ["asimd"])).elementwise, .neon,
                       "arm64: XNNPACK's neonfma kernels on every core")
    }
}
