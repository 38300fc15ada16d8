import Foundation
import TasksVision
@testable import vision
import XCTest

/// A task command that exists only in this file: registering it is all it takes for it to appear in
/// `vision --help`, in the help tests, in `vision --help --json` and in the benchmark's task list.
enum DummyCommand: TaskCommand {
    static let table = OptionTable(
        command: "dummy", summary: "A test-only task: the size of each image.",
        positional: TaskCommandOptions.positional,
        options: [.number("--scale", "X", .positive, default: 1, "multiply the sizes by X")]
            + TaskCommandOptions.common)

    static let benchmarks = [BenchmarkEntry(name: "dummy", photo: "faces_two_1.png", sequence: "pose_dance_1")]

    struct Size: Encodable { let width: Double; let height: Double }

    final class Task: FrameTask {
        let scale: Double
        nonisolated(unsafe) static var calls = 0
        init(scale: Double) { self.scale = scale }

        func image(_ image: MPImage) throws -> FrameReport {
            Self.calls += 1
            let size = Size(width: Double(image.width) * scale, height: Double(image.height) * scale)
            return FrameReport(result: size, summary: "\(size.width)x\(size.height)") { _ in }
        }

        func video(_ image: MPImage, timestamp: Int) throws -> FrameReport { try self.image(image) }
        func submit(_ image: MPImage, timestamp: Int) throws -> Bool { _ = try self.image(image); return true }
        func drain() {}
    }

    static func maker(_ options: ParsedOptions) throws -> TaskMaker {
        let scale = try options.double("--scale")
        return TaskMaker { _ in Task(scale: scale) }
    }
}

final class DummyCommandTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        Commands.register(DummyCommand.self)
    }

    func testARegisteredCommandIsListedHelpedAndBenchmarked() throws {
        XCTAssertEqual(Commands.all.last?.table.command, "dummy")
        let usage = CommandLineTool.usage
        XCTAssertTrue(usage.contains("\n  dummy "), usage)
        XCTAssertTrue(usage.contains("vision dummy [--threads N] [options] PATH... | --video DIR|FILE|/dev/videoN"),
                      usage)
        try HelpTests.checkHelp(DummyCommand.self)
        XCTAssertTrue(CommandList.json.contains(#"{"command":"dummy","outputs":[{"option":"--overlay","#
                                                + #""placeholder":"DIR|FILE.mp4"}],"summary":"A test-only task: the "#
                                                + #"size of each image.","task":true}"#), CommandList.json)
        XCTAssertTrue(CommandList.json.contains(#""name":"dummy""#))

        // The benchmark makes and runs it from the registry as `vision dummy` would.
        let task = try XCTUnwrap(BenchmarkTask.named("dummy"))
        XCTAssertEqual(task.commandName, "dummy")
        XCTAssertEqual(task.entry.sequence, "pose_dance_1")
        let image = try MPImage(pixels: [UInt8](repeating: 0, count: 4 * 3 * 3), width: 4, height: 3,
                                pixelFormat: .rgb8)
        let before = DummyCommand.Task.calls
        try task.make(threads: 1).run(image, timestamp: 0)
        try task.make(mode: .liveStream, threads: 1).run(image, timestamp: 33)
        XCTAssertEqual(DummyCommand.Task.calls, before + 2)

        // An option of the command is refused as the others' are.
        XCTAssertThrowsError(try CommandLineTool.run(["dummy", "--scale", "0"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--scale 0 is out of range: allowed > 0")
        }
    }
}
