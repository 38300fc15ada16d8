import Foundation
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
