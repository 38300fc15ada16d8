import Foundation
import XCTest

/// The command-line examples of the README and of every page in docs/ are true: every `$ vision` block prints what
/// the page shows (" ..." elides), and every option an example line names exists.
final class ReadmeTests: XCTestCase {
    struct Example { var command: [String]; var output: String }

    /// README.md and docs/*.md, by path relative to the package.
    static func documents() throws -> [(path: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: CLI.root + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md"] + docs).map {
            ($0, try String(contentsOfFile: CLI.root + "/" + $0, encoding: .utf8))
        }
    }

    func testTheReadmeIsShortAndLinksExist() throws {
        let readme = try String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8)
        XCTAssertLessThanOrEqual(readme.components(separatedBy: "\n").count, 200, "README.md lines")
        var links = 0
        for (path, text) in try Self.documents() {
            let folder = (path as NSString).deletingLastPathComponent
            let pattern = try NSRegularExpression(pattern: "\\]\\(([^)#: ]+)(#[^)]*)?\\)")
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let r = Range(m.range(at: 1), in: text) else { continue }
                let target = ((CLI.root + "/" + folder) as NSString).appendingPathComponent(String(text[r]))
                XCTAssertTrue(FileManager.default.fileExists(atPath: target), "\(path) links to \(text[r])")
                links += 1
            }
        }
        XCTAssertGreaterThanOrEqual(links, 8, "links to docs/ and the picture")
    }

    /// The fenced blocks of the README, each as its lines.
    static func blocks(_ text: String) -> [[String]] {
        var blocks: [[String]] = [], current: [String]?
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                if let c = current { blocks.append(c); current = nil } else { current = [] }
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static func examples(_ text: String) -> [Example] {
        blocks(text).compactMap { lines in
            guard let first = lines.first, first.hasPrefix("$ vision ") else { return nil }
            let command = first.dropFirst("$ vision ".count).split(separator: " ").map(String.init)
            // A line starting with one space continues the one before (the README wraps long JSON).
            var output: [String] = []
            for line in lines.dropFirst() {
                if line.hasPrefix(" "), !line.hasPrefix("  "), let last = output.popLast() {
                    output.append(last + line.drop { $0 == " " })
                } else {
                    output.append(line)
                }
            }
            return Example(command: command, output: output.joined(separator: "\n"))
        }
    }

    func run(_ args: [String], in directory: String) throws -> CLI.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.executable)
        process.arguments = args
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Result(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }

    /// The numbers of a text as "#": on a kernel set that does not sum as XNNPACK does, results
    /// differ from the README's (which shows the exact sets' output) in their last digits.
    static func withoutNumbers(_ s: String) -> String {
        s.replacingOccurrences(of: "-?[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?", with: "#", options: .regularExpression)
    }

    func testDollarExamplesPrintWhatTheReadmeShows() throws {
        let examples = try Self.documents().flatMap { Self.examples($0.text) }
        // The README shows XNNPACK's results as on most x86 CPUs; the first Zen's (rotated quads) differ from them in
        // their last digits, as MediaPipe's own do there.
        let kernels = try CLI.run(["kernels"]).stdout
        let exact = kernels.contains("sums as XNNPACK: yes") && !kernels.contains("rotated quads")
        XCTAssertGreaterThanOrEqual(examples.count, 2, "the README's $ vision examples")
        for e in examples {
            // File names in the examples are test photos.
            let r = try run(e.command, in: CLI.images)
            XCTAssertEqual(r.status, 0, e.command.joined(separator: " "))
            let printed = r.stdout.trimmingCharacters(in: .newlines)
            let actual = exact ? printed : Self.withoutNumbers(printed)
            let shown = exact ? e.output : Self.withoutNumbers(e.output)
            // " ..." (after a space) elides; "PATH..." is text.
            if shown.contains(" ...") {
                var rest = Substring(actual)
                for part in shown.components(separatedBy: " ...") {
                    let fragment = part.trimmingCharacters(in: CharacterSet(charactersIn: " ,\n"))
                    guard !fragment.isEmpty else { continue }
                    guard let range = rest.range(of: fragment) else {
                        XCTFail("vision \(e.command.joined(separator: " ")) does not print '\(fragment)' "
                                + "where the README shows it:\n\(actual)")
                        break
                    }
                    rest = rest[range.upperBound...]
                }
            } else {
                XCTAssertEqual(actual, shown, "vision \(e.command.joined(separator: " "))")
            }
        }
    }

    func testEveryOptionOfAnExampleExists() throws {
        let commands = ["faces", "palms", "hands", "gestures", "pose", "holistic", "kernels", "model", "models",
                        "segment", "classify", "embed", "objects"]
        var help: [String: String] = [:]
        var checked = 0
        for (path, text) in try Self.documents() {
            for line in Self.blocks(text).joined() {
                let words = line.drop { $0 == "$" || $0 == " " }.split(separator: " ").map(String.init)
                guard words.count > 1, words[0] == "vision", commands.contains(words[1]) else { continue }
                // A subcommand (`vision gestures train`, `vision model info`) has options of its own.
                var command = [words[1]]
                if words.count > 2, !words[2].hasPrefix("-"), !words[2].contains("."), !words[2].contains("/"),
                   try CLI.run([words[1], words[2], "--help"]).status == 0 {
                    command.append(words[2])
                }
                let key = command.joined(separator: " ")
                if help[key] == nil { help[key] = try CLI.run(command + ["--help"]).stdout }
                for option in words.dropFirst(1 + command.count) where option.hasPrefix("--") {
                    let name = String(option.prefix { $0 != "=" })
                    XCTAssertTrue(help[key]?.contains(name + " ") == true || help[key]?.contains(name + "\n") == true,
                                  "\(path) line '\(line)': vision \(key) has no option \(name)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10)
    }
}
