// swift-tools-version:6.2
import PackageDescription

// A package that uses TasksVision as a user's does: resolved by URL and version. tools/consumer_test.sh builds it
// against a clone of this repository tagged 0.1.0, with the URL below pointed at that clone.
let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    dependencies: [
        .package(url: "https://github.com/OWNER/TasksVision.git", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [
            .product(name: "TasksVision", package: "TasksVision"),
            .product(name: "TasksVisionImageIO", package: "TasksVision"),
            .product(name: "TasksVisionPoseClassification", package: "TasksVision"),
        ]),
    ]
)
