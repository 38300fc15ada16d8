import Foundation
@testable import vision
import XCTest

final class HelpTests: XCTestCase {
    /// `vision WORDS --help`: the executable for the built-in commands, this process for one a test registered.
    static func help(_ command: any VisionCommand.Type, flag: String = "--help") throws -> CLI.Result {
        let args = command.words + [flag]
        if Commands.builtIn.contains(where: { $0.table.command == command.table.command }) {
            return try CLI.run(args)
        }
        do {
            try CommandLineTool.run(args)
            return CLI.Result(status: 1, stdout: "", stderr: "no help")
        } catch let help as HelpRequest {
            return CLI.Result(status: 0, stdout: help.text + "\n", stderr: "")
        }
    }

    /// `--help` and `-h` print, on stdout with status 0, every option of the command's table with its
    /// default and description, and a usage line.
    static func checkHelp(_ command: any VisionCommand.Type) throws {
        let table = command.table
        for flag in ["--help", "-h"] {
            let r = try help(command, flag: flag)
            XCTAssertEqual(r.status, 0, "\(table.command) \(flag): \(r.stderr)")
            XCTAssertEqual(r.stderr, "", "\(table.command) \(flag)")
            XCTAssertTrue(r.stdout.hasPrefix("usage: vision \(table.command)"), r.stdout)
            // Help lines wrap; compare with the whitespace runs folded to one space.
            let text = r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
            for option in table.options {
                XCTAssertTrue(text.contains(" \(option.name)"), "\(table.command): \(option.name)")
                XCTAssertTrue(text.contains("\(option.help) (default: \(option.defaultText))"),
                              "\(table.command): \(option.name)")
            }
            if table.spec("--threads") != nil {
                XCTAssertTrue(r.stdout.contains("[--threads N]"), "\(table.command) usage")
            }
            for line in r.stdout.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 120, "\(table.command): \(line)")
            }
        }
    }

    func testHelpListsEveryOptionWithItsDefault() throws {
        XCTAssertGreaterThanOrEqual(Commands.all.count, 14)
        for command in Commands.all { try Self.checkHelp(command) }
        // A few defaults spelled out, so a table change that drops them is noticed.
        let faces = try CLI.run(["faces", "--help"]).stdout.split(whereSeparator: { $0 == " " || $0 == "\n" })
            .joined(separator: " ")
        for needle in ["(default: 0.5)", "(default: 0.3)", "(default: Models/blaze_face_short_range.tflite)",
                       "--threads N", "(default: 1)", "(default: 33 ms a frame, 30 in an overlay video)", "(default: off)"] {
            XCTAssertTrue(faces.contains(needle), needle)
        }
        let top = try CLI.run(["--help"])
        XCTAssertEqual(top.status, 0)
        for command in Commands.builtIn {
            XCTAssertTrue(top.stdout.contains("vision \(command.table.command) "), command.table.command)
        }
        XCTAssertTrue(top.stdout.contains("vision faces [--threads N]"), top.stdout)
        XCTAssertEqual(try CLI.run(["model", "--help"]).status, 0)
    }

    /// No line of `vision --help` is longer than 120 columns (each command's own help is checked above).
    func testHelpLinesFitInAWindow() throws {
        for line in try CLI.run(["--help"]).stdout.split(separator: "\n") {
            XCTAssertLessThanOrEqual(line.count, 120, String(line))
        }
    }

    /// docs/command-line.md shows `vision --help` as the executable prints it.
    func testTheDocsShowTheHelpAsPrinted() throws {
        let docs = try String(contentsOfFile: CLI.root + "/docs/command-line.md", encoding: .utf8)
        guard let start = docs.range(of: "$ vision --help\n"),
              let end = docs.range(of: "\n```", range: start.upperBound..<docs.endIndex) else {
            return XCTFail("docs/command-line.md has no `$ vision --help` block")
        }
        XCTAssertEqual(String(docs[start.upperBound..<end.lowerBound]) + "\n", try CLI.run(["--help"]).stdout)
    }

    /// `vision --help --json` lists every command, the task commands marked, and the benchmark's runs.
    func testHelpAsJSONListsTheRegistry() throws {
        let r = try CLI.run(["--help", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let commands = object?["commands"] as? [[String: Any]] ?? []
        XCTAssertEqual(commands.compactMap { $0["command"] as? String }, Commands.builtIn.map { $0.table.command })
        XCTAssertEqual(commands.filter { $0["task"] as? Bool == true }.compactMap { $0["command"] as? String },
                       ["faces", "face-landmarks", "palms", "hands", "gestures", "pose", "holistic", "objects",
                        "segment", "classify", "embed"])
        let runs = object?["benchmarks"] as? [[String: Any]] ?? []
        XCTAssertEqual(runs.compactMap { $0["name"] as? String },
                       ["faces", "face-landmarks", "face-landmarks-video", "face-landmarks-full",
                        "face-landmarks-full-video", "palms", "hands", "hands-video", "gestures", "gestures-video",
                        "pose", "pose-stream", "pose-accurate", "pose-accurate-stream", "holistic", "holistic-video",
                        "holistic-full", "holistic-full-video", "objects", "segment", "segment-general",
                        "segment-landscape", "segment-deeplab", "classify", "classify-float", "embed"])
    }
}
