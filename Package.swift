// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "TasksVision",
    products: [
        .library(name: "TasksVisionFormat", targets: ["TasksVisionFormat"]),
        .library(name: "TasksVisionEngine", targets: ["TasksVisionEngine"]),
        .library(name: "TasksVision", targets: ["TasksVision"]),
        .library(name: "TasksVisionImageIO", targets: ["TasksVisionImageIO"]),
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
        // Layer 2: the tensor engine (graph, memory plan, kernels).
        .target(name: "TasksVisionEngine", dependencies: ["TasksVisionFormat", "COpenBLAS"]),
        // PNG and JPEG decoding for the command line and tests (the library itself takes pixels).
        .target(name: "TasksVisionImageIO", dependencies: ["TasksVisionFormat"]),
        // Layer 3: the vision tasks.
        .target(name: "TasksVision", dependencies: ["TasksVisionEngine", "TasksVisionFormat"]),
        // Command-line tool.
        .executableTarget(name: "vision", dependencies: ["TasksVisionFormat", "TasksVisionEngine", "TasksVision", "TasksVisionImageIO"]),
        // Benchmark executable.
        .executableTarget(
            name: "vision-bench",
            dependencies: ["TasksVisionFormat", "TasksVisionEngine", "TasksVision", "TasksVisionImageIO"],
            path: "Benchmarks/vision-bench"
        ),
        // Test support: puts the test process on the OpenBLAS kernels the executables use.
        .target(name: "TestBLASKernels", dependencies: ["COpenBLAS"], path: "Tests/TestBLASKernels"),
        .testTarget(name: "TasksVisionFormatTests", dependencies: ["TasksVisionFormat"]),
        .testTarget(name: "TasksVisionEngineTests", dependencies: ["TasksVisionEngine", "TasksVisionFormat", "TestBLASKernels"]),
        .testTarget(name: "VisionCLITests", dependencies: ["vision", "TasksVisionFormat"]),
        .testTarget(name: "TasksVisionImageIOTests", dependencies: ["TasksVisionImageIO"]),
        .testTarget(name: "TasksVisionTests", dependencies: ["TasksVision", "TasksVisionImageIO", "TasksVisionEngine", "TasksVisionFormat", "TestBLASKernels"]),
    ]
)
