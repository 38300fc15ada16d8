import Foundation
import XCTest

enum CLI {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let models = root + "/Models"
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")

    /// The `vision` executable built next to the test bundle.
    static var executable: String {
        var dir = Bundle.main.bundleURL
        if dir.pathExtension == "xctest" { dir.deleteLastPathComponent() }
        for candidate in [dir.appendingPathComponent("vision").path,
                          Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vision").path] {
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return dir.appendingPathComponent("vision").path
    }

    struct Result { let status: Int32; let stdout: String; let stderr: String }

    static func run(_ args: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vision-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
