import Foundation
@testable import TasksVisionPoseClassification
import XCTest

/// The reference cases printed by ML Kit's Java classes (tools/reference_pose_classification.sh):
/// floats as their bits in hex, tab-separated fields, results as CLASS=BITS;... in Java's order.
enum Reference {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let fixtures = root + "/Tests/Fixtures/pose_classification"
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")
    static let samplesCSV = shared + "/testdata/pose_classification/fitness_pose_samples.csv"

    /// The quickstart's samples, read once.
    static let sampleFile: PoseSampleFile? = try? PoseSampleFile(contentsOfFile: samplesCSV)

    static func samples(file: StaticString = #filePath, line: UInt = #line) throws -> PoseSampleFile {
        guard let sampleFile else {
            XCTFail("cannot read \(samplesCSV)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return sampleFile
    }

    /// A fixture's rows, split at tabs.
    static func rows(_ name: String) throws -> [[String]] {
        let text = try String(contentsOfFile: fixtures + "/" + name, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    static func hex(_ f: Float) -> String {
        let s = String(f.bitPattern, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }

    static func float(_ s: Substring) -> Float { Float(bitPattern: UInt32(s, radix: 16) ?? 0) }

    static func points(_ text: String) -> [PointF3D] {
        guard text != "-" else { return [] }
        let v = text.split(separator: ",").map(float)
        return stride(from: 0, to: v.count - 2, by: 3).map { PointF3D(x: v[$0], y: v[$0 + 1], z: v[$0 + 2]) }
    }

    static func text(_ points: [PointF3D]) -> String {
        points.isEmpty ? "-" : points.map { "\(hex($0.x)),\(hex($0.y)),\(hex($0.z))" }.joined(separator: ",")
    }

    static func text(_ r: ClassificationResult) -> String {
        let s = r.allClasses.map { "\($0)=\(hex(r.classConfidence($0)))" }.joined(separator: ";")
        return s.isEmpty ? "-" : s
    }
}
