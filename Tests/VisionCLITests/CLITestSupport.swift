import Foundation
import XCTest

struct NotAJSONObject: Error { let line: String }

/// A child's standard error, read on another thread (the semaphore orders the write before the read).
final class ErrorOutput: @unchecked Sendable {
    var data = Data()
    let done = DispatchSemaphore(value: 0)
}

enum CLI {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let models = root + "/Models"
    static let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (root + "/../shared")
    static let images = shared + "/testdata/images"
    static let sequences = shared + "/testdata/sequences"

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

    /// Runs `executable` (vision by default) with `args`; `environment` entries replace the inherited ones;
    /// `input` is written to its standard input (which is empty otherwise); `directory` is its working folder.
    static func run(_ args: [String], environment: [String: String] = [:],
                    executable path: String? = nil, input: String? = nil, directory: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path ?? executable)
        process.arguments = args
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            // Written on another thread: the child may answer before it has read everything.
            let writer = stdin.fileHandleForWriting
            DispatchQueue.global().async {
                writer.write(Data(input.utf8))
                try? writer.close()
            }
        }
        // Standard error is drained on another thread so that neither pipe can fill up and stall the child.
        let e = ErrorOutput()
        DispatchQueue.global().async {
            e.data = err.fileHandleForReading.readDataToEndOfFile()
            e.done.signal()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        e.done.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e.data, as: UTF8.self))
    }

    /// A new directory under the system's temporary one, removed with its contents when `test` ends.
    static func temporaryDirectory(removedAfter test: XCTestCase) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vision-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    /// ffmpeg on PATH, or nil (tests that need it are skipped; CI installs it through tools/setup.sh).
    static let ffmpeg: String? = {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return dirs.map { $0 + "/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static func requireFFmpeg() throws -> String {
        guard let ffmpeg else { throw XCTSkip("ffmpeg is not on PATH (tools/setup.sh installs it)") }
        return ffmpeg
    }

    /// Runs ffmpeg quietly and fails the test with its error output if it fails.
    static func ffmpeg(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let quiet = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
        let r = try run(quiet + args, executable: try requireFFmpeg())
        XCTAssertEqual(r.status, 0, "ffmpeg \(args): \(r.stderr)", file: file, line: line)
    }

    /// One JSON line per element.
    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw NotAJSONObject(line: String(line.prefix(80)))
            }
            return obj
        }
    }
}
