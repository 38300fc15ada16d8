import Foundation
@testable import vision
import XCTest

final class HelpTests: XCTestCase {
    /// Each command's table, with the words that run it.
    let commands: [([String], OptionTable)] = [
        (["faces"], FacesCommand.table), (["hands"], HandsCommand.handsTable),
        (["gestures"], HandsCommand.gesturesTable), (["pose"], PoseCommand.table),
        (["model", "info"], ModelCommand.infoTable), (["model", "run"], ModelCommand.runTable),
        (["kernels"], KernelsCommand.table),
    ]

    /// `--help` and `-h` print, on stdout with status 0, every option of the command's table with its
    /// default and description, and a usage line.
    func testHelpListsEveryOptionWithItsDefault() throws {
        for (words, table) in commands {
            for flag in ["--help", "-h"] {
                let r = try CLI.run(words + [flag])
                XCTAssertEqual(r.status, 0, "\(words) \(flag): \(r.stderr)")
                XCTAssertEqual(r.stderr, "", "\(words) \(flag)")
                XCTAssertTrue(r.stdout.hasPrefix("usage: vision \(words.joined(separator: " "))"), r.stdout)
                // Help lines wrap; compare with the whitespace runs folded to one space.
                let text = r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
                for option in table.options {
                    XCTAssertTrue(text.contains(" \(option.name)"), "\(words): \(option.name)")
                    XCTAssertTrue(text.contains("\(option.help) (default: \(option.defaultText))"),
                                  "\(words): \(option.name)")
                }
                if table.spec("--threads") != nil {
                    XCTAssertTrue(r.stdout.contains("[--threads N]"), "\(words) usage")
                }
            }
        }
        // A few defaults spelled out, so a table change that drops them is noticed.
        let faces = try CLI.run(["faces", "--help"]).stdout.split(whereSeparator: { $0 == " " || $0 == "\n" })
            .joined(separator: " ")
        for needle in ["(default: 0.5)", "(default: 0.3)", "(default: Models/blaze_face_short_range.tflite)",
                       "--threads N", "(default: 1)", "(default: 33 ms a frame)", "(default: off)"] {
            XCTAssertTrue(faces.contains(needle), needle)
        }
        let top = try CLI.run(["--help"])
        XCTAssertEqual(top.status, 0)
        for (words, _) in commands {
            XCTAssertTrue(top.stdout.contains("vision \(words.joined(separator: " "))"), "\(words)")
        }
        XCTAssertTrue(top.stdout.contains("vision faces [--threads N]"), top.stdout)
        XCTAssertEqual(try CLI.run(["model", "--help"]).status, 0)
    }

    /// No line of any help is longer than 120 columns.
    func testHelpLinesFitInAWindow() throws {
        for args in [["--help"]] + commands.map({ $0.0 + ["--help"] }) {
            for line in try CLI.run(args).stdout.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 120, "\(args): \(line)")
            }
        }
    }
}
