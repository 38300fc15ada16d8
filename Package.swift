// swift-tools-version:6.2
// 6.2 is the floor: from 6.2 on SwiftPM builds a dependency whose targets carry unsafe flags when its manifest is
// tools-version 6.2 or later; 6.1 refuses such a product ("contains unsafe build flags"). tools/consumer_test.sh
// builds Examples/Consumer against this package by URL and version.
import PackageDescription

// Unsafe flags never reach an Apple platform build. A manifest evaluated on a Mac (Xcode, or swift build there;
// Apple platforms are built nowhere else) declares none, as Xcode may refuse a dependency that declares any; elsewhere
// each one is conditioned on non-Apple platforms. TASKSVISION_NO_UNSAFE_FLAGS=1 gives the Mac's manifest anywhere.
// Without them the kernels compute the same bits, slower. Tests/TasksVisionFormatTests/PackagingTests.swift checks.
#if canImport(Darwin)
let unsafeFlagsAllowed = false
#else
let unsafeFlagsAllowed = Context.environment["TASKSVISION_NO_UNSAFE_FLAGS"] == nil
#endif
let nonApplePlatforms: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]
// Each FMA kernel set is its own target, compiled for its instruction set; the engine runs a set only after
// probing the CPU for it (KernelSet.isSupported). A manifest sees the machine that builds, not the one built for,
// so the `-target-cpu` flags are added when the build machine is x86-64, and only for Linux and Windows. They would
// still reach an arm64 build made on an x86-64 machine for one of those (a Linux cross-build): set
// TASKSVISION_NO_TARGET_CPU=1 there. Without the flags the AVX2 and AVX-512 sets compute the same bits, slower.
let x86Platforms: [Platform] = [.linux, .windows]
#if arch(x86_64)
let targetCPUFlags = unsafeFlagsAllowed && Context.environment["TASKSVISION_NO_TARGET_CPU"] == nil
#else
let targetCPUFlags = false
#endif
let avx2Flags: [SwiftSetting] =
    targetCPUFlags ? [.unsafeFlags(["-target-cpu", "haswell"], .when(platforms: x86Platforms))] : []
let avx512Flags: [SwiftSetting] =
    targetCPUFlags ? [.unsafeFlags(["-target-cpu", "skylake-avx512"], .when(platforms: x86Platforms))] : []
// Skylake-X's AVX-512 plus VNNI (`vpdpbusd`), for the int8 kernels that need it.
let avx512VNNIFlags: [SwiftSetting] =
    targetCPUFlags ? [.unsafeFlags(["-target-cpu", "cascadelake"], .when(platforms: x86Platforms))] : []
// The `Builtin` module (LLVM's vector FMA, masked loads, prefetch) needs -parse-stdlib; without it
// (TASKSVISION_BUILTIN undefined) the target uses the standard library's lane-wise equivalents.
let vectorFMASettings: [SwiftSetting] = unsafeFlagsAllowed ? [
    .unsafeFlags(["-parse-stdlib"], .when(platforms: nonApplePlatforms)),
    .define("TASKSVISION_BUILTIN", .when(platforms: nonApplePlatforms)),
] : []
// OpenBLAS serves the portable kernel set only; Apple platforms use Accelerate instead (see PlatformBLAS.swift).
let applePlatforms: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst]
let openBLASPlatforms: [Platform] = nonApplePlatforms

let package = Package(
    name: "TasksVision",
    // Swift concurrency (async/await, AsyncStream) is in every one of them. iOS 15 is what MediaPipe's own pods ask
    // (MediaPipeTasksVision and MediaPipeTasksCommon podspecs, and its Package.swift template); the others are the
    // releases of the same year. Newer APIs are behind `if #available` (ParallelFor.swift's atomics).
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "TasksVisionFormat", targets: ["TasksVisionFormat"]),
        .library(name: "TasksVisionEngine", targets: ["TasksVisionEngine"]),
        .library(name: "TasksVision", targets: ["TasksVision"]),
        .library(name: "TasksVisionImageIO", targets: ["TasksVisionImageIO"]),
        .library(name: "TasksVisionTraining", targets: ["TasksVisionTraining"]),
        .library(name: "TasksVisionPoseClassification", targets: ["TasksVisionPoseClassification"]),
        .executable(name: "vision", targets: ["VisionTool"]),
        .executable(name: "vision-bench", targets: ["vision-bench"]),
    ],
    targets: [
        // OpenBLAS (Debian: libopenblas-dev), found through pkg-config `openblas`.
        .systemLibrary(
            name: "COpenBLAS",
            path: "Sources/COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        // Layer 1: reading .tflite flatbuffers, TFLite metadata, zips and .task bundles.
        .target(name: "TasksVisionFormat"),
        // Layer 2a: CPU features, kernel-set choice and the microkernels' argument types.
        .target(name: "TasksVisionKernels"),
        // Layer 2b: one target per FMA instruction set, each the templates in
        // Sources/MicrokernelTemplates (linked in) on that set's vector width.
        // Vector fused multiply-adds as one LLVM operation each (see its file for why), for the FMA sets.
        .target(name: "TasksVisionVectorFMA", swiftSettings: vectorFMASettings),
        .target(name: "TasksVisionKernelsAVX2", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"],
                swiftSettings: avx2Flags),
        .target(name: "TasksVisionKernelsAVX512", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"],
                swiftSettings: avx512Flags),
        .target(name: "TasksVisionKernelsAVX512VNNI", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"],
                swiftSettings: avx512VNNIFlags),
        .target(name: "TasksVisionKernelsNEON", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"]),
        // The portable set's Swift kernels (baseline instructions; its GEMMs are OpenBLAS's).
        .target(name: "TasksVisionKernelsPortable", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"]),
        // Layer 2c: the tensor engine (graph, memory plan, layers), taking its microkernels from
        // the set chosen for the CPU.
        // Which processor a thread runs on (the worker pool moves a helper off its caller's).
        .target(name: "CProcessorInfo"),
        // The x86 reciprocal-square-root estimates XNNPACK's SQRT and RSQRT start from (run, not emulated).
        .target(name: "CVectorEstimates"),
        .target(name: "TasksVisionEngine", dependencies: [
            "TasksVisionFormat", .target(name: "COpenBLAS", condition: .when(platforms: openBLASPlatforms)),
            "CProcessorInfo", "CVectorEstimates", "TasksVisionKernels",
            "TasksVisionKernelsAVX2", "TasksVisionKernelsAVX512", "TasksVisionKernelsAVX512VNNI",
            "TasksVisionKernelsNEON",
            "TasksVisionKernelsPortable",
        ], linkerSettings: [.linkedFramework("Accelerate", .when(platforms: applePlatforms))]),
        // PNG and JPEG decoding for the command line and tests (the library itself takes pixels).
        .target(name: "TasksVisionImageIO", dependencies: ["TasksVisionFormat", "TasksVision"]),
        // Layer 3: the vision tasks.
        .target(name: "TasksVision", dependencies: ["TasksVisionEngine", "TasksVisionFormat"]),
        // Layer 4: training custom gesture classifiers (Model Maker's recipe) and writing their bundles.
        .target(name: "TasksVisionTraining",
                dependencies: ["TasksVision", "TasksVisionEngine", "TasksVisionFormat", "TasksVisionImageIO"]),
        // Layer 4: ML Kit's pose classification and repetition counting (its quickstart's Java classes).
        .target(name: "TasksVisionPoseClassification", dependencies: ["TasksVision"]),
        // The command line's commands (module `vision`): each command one type in the registry (Commands.swift),
        // shared by the `vision` executable and the benchmark.
        .target(name: "vision",
                dependencies: ["TasksVisionFormat", "TasksVisionKernels", "TasksVisionEngine", "TasksVision",
                               "TasksVisionImageIO", "TasksVisionTraining", "TasksVisionPoseClassification"]),
        // Command-line tool: the product `vision`, its main.swift alone.
        .executableTarget(name: "VisionTool", dependencies: ["vision", "TasksVision", "TasksVisionEngine"]),
        // Benchmark executable.
        .executableTarget(
            name: "vision-bench",
            dependencies: ["vision", "TasksVisionFormat", "TasksVisionKernels", "TasksVisionEngine", "TasksVision",
                           "TasksVisionImageIO", "TasksVisionPoseClassification"],
            path: "Benchmarks/vision-bench"
        ),
        // Test support: puts the test process on the OpenBLAS kernels the executables use.
        .target(name: "TestBLASKernels",
                dependencies: [.target(name: "COpenBLAS", condition: .when(platforms: openBLASPlatforms))],
                path: "Tests/TestBLASKernels"),
        // Test support: one decoder of the committed reference fixtures for the test targets that compare with them.
        .target(name: "TestFixtureSupport", path: "Tests/TestFixtureSupport"),
        .testTarget(name: "TasksVisionFormatTests", dependencies: ["TasksVisionFormat"]),
        .testTarget(name: "TasksVisionEngineTests",
                    dependencies: ["TasksVisionEngine", "TasksVisionKernels", "TasksVisionFormat", "TestBLASKernels",
                                   "TasksVisionKernelsAVX2", "TasksVisionKernelsAVX512", "TasksVisionKernelsAVX512VNNI",
                                   "TasksVisionKernelsNEON", "TasksVisionKernelsPortable"]),
        .testTarget(name: "VisionCLITests",
                    dependencies: ["vision", "TasksVisionFormat", "TasksVisionImageIO", "TestFixtureSupport"]),
        .testTarget(name: "TasksVisionImageIOTests", dependencies: ["TasksVisionImageIO"]),
        .testTarget(name: "TasksVisionTrainingTests",
                    dependencies: ["TasksVisionTraining", "TasksVision", "TasksVisionEngine", "TasksVisionFormat",
                                   "TasksVisionImageIO", "TestBLASKernels"]),
        .testTarget(name: "TasksVisionPoseClassificationTests",
                    dependencies: ["TasksVisionPoseClassification", "TasksVision"]),
        .testTarget(name: "GuideCallTests", dependencies: ["TasksVision", "TasksVisionImageIO"]),
        // MediaPipe's iOS task tests (mediapipe/tasks/ios/test/vision), ported on our photos.
        .testTarget(name: "GoogleTestsPortTests",
                    dependencies: ["TasksVision", "TasksVisionImageIO", "TestFixtureSupport"]),
        .testTarget(name: "TasksVisionTests",
                    dependencies: ["TasksVision", "TasksVisionImageIO", "TasksVisionEngine", "TasksVisionFormat",
                                   "TestBLASKernels", "TestFixtureSupport"]),
    ],
    swiftLanguageModes: [.v5]
)

// TASKSVISION_LIBRARY_ONLY=1: the libraries and their tests alone, for platforms without processes or a terminal
// (the iOS Simulator job of .github/workflows/ci.yml): the command-line tools run ffmpeg as a child process.
if Context.environment["TASKSVISION_LIBRARY_ONLY"] != nil {
    let tools: Set<String> = ["vision", "vision-bench", "VisionCLITests"]
    package.products.removeAll { tools.contains($0.name) }
    package.targets.removeAll { tools.contains($0.name) }
}
