// swift-tools-version:6.2
import PackageDescription

// Each FMA kernel set is its own target, compiled for its instruction set. The flags are added
// only when building on x86-64 (arm64's baseline already has NEON with FMA); the engine runs a
// set only after probing the CPU for it (KernelSet.isSupported).
#if arch(x86_64)
let avx2Flags: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"])]
let avx512Flags: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "skylake-avx512"])]
#else
let avx2Flags: [SwiftSetting] = []
let avx512Flags: [SwiftSetting] = []
#endif

let package = Package(
    name: "TasksVision",
    products: [
        .library(name: "TasksVisionFormat", targets: ["TasksVisionFormat"]),
        .library(name: "TasksVisionEngine", targets: ["TasksVisionEngine"]),
        .library(name: "TasksVision", targets: ["TasksVision"]),
        .library(name: "TasksVisionImageIO", targets: ["TasksVisionImageIO"]),
        .library(name: "TasksVisionPoseClassification", targets: ["TasksVisionPoseClassification"]),
        .executable(name: "vision", targets: ["vision"]),
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
        .target(name: "TasksVisionVectorFMA", swiftSettings: [.unsafeFlags(["-parse-stdlib"])]),
        .target(name: "TasksVisionKernelsAVX2", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"],
                swiftSettings: avx2Flags),
        .target(name: "TasksVisionKernelsAVX512", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"],
                swiftSettings: avx512Flags),
        .target(name: "TasksVisionKernelsNEON", dependencies: ["TasksVisionKernels", "TasksVisionVectorFMA"]),
        // The portable set's Swift kernels (baseline instructions; its GEMMs are OpenBLAS's).
        .target(name: "TasksVisionKernelsPortable", dependencies: ["TasksVisionKernels"]),
        // Layer 2c: the tensor engine (graph, memory plan, layers), taking its microkernels from
        // the set chosen for the CPU.
        // Which processor a thread runs on (the worker pool moves a helper off its caller's).
        .target(name: "CProcessorInfo"),
        .target(name: "TasksVisionEngine", dependencies: [
            "TasksVisionFormat", "COpenBLAS", "CProcessorInfo", "TasksVisionKernels",
            "TasksVisionKernelsAVX2", "TasksVisionKernelsAVX512", "TasksVisionKernelsNEON",
            "TasksVisionKernelsPortable",
        ]),
        // PNG and JPEG decoding for the command line and tests (the library itself takes pixels).
        .target(name: "TasksVisionImageIO", dependencies: ["TasksVisionFormat", "TasksVision"]),
        // Layer 3: the vision tasks.
        .target(name: "TasksVision", dependencies: ["TasksVisionEngine", "TasksVisionFormat"]),
        // ML Kit's pose classification and repetition counting (its quickstart's Java classes).
        .target(name: "TasksVisionPoseClassification", dependencies: ["TasksVision"]),
        // Command-line tool.
        .executableTarget(name: "vision",
                          dependencies: ["TasksVisionFormat", "TasksVisionEngine", "TasksVision",
                                         "TasksVisionImageIO", "TasksVisionPoseClassification"]),
        // Benchmark executable.
        .executableTarget(
            name: "vision-bench",
            dependencies: ["TasksVisionFormat", "TasksVisionEngine", "TasksVision", "TasksVisionImageIO",
                           "TasksVisionPoseClassification"],
            path: "Benchmarks/vision-bench"
        ),
        // Test support: puts the test process on the OpenBLAS kernels the executables use.
        .target(name: "TestBLASKernels", dependencies: ["COpenBLAS"], path: "Tests/TestBLASKernels"),
        .testTarget(name: "TasksVisionFormatTests", dependencies: ["TasksVisionFormat"]),
        .testTarget(name: "TasksVisionEngineTests",
                    dependencies: ["TasksVisionEngine", "TasksVisionKernels", "TasksVisionFormat", "TestBLASKernels"]),
        .testTarget(name: "VisionCLITests", dependencies: ["vision", "TasksVisionFormat", "TasksVisionImageIO"]),
        .testTarget(name: "TasksVisionImageIOTests", dependencies: ["TasksVisionImageIO"]),
        .testTarget(name: "TasksVisionPoseClassificationTests",
                    dependencies: ["TasksVisionPoseClassification", "TasksVision"]),
        .testTarget(name: "GuideCallTests", dependencies: ["TasksVision", "TasksVisionImageIO"]),
        .testTarget(name: "TasksVisionTests",
                    dependencies: ["TasksVision", "TasksVisionImageIO", "TasksVisionEngine", "TasksVisionFormat",
                                   "TestBLASKernels"]),
    ],
    swiftLanguageModes: [.v5]
)
