import Foundation
@testable import vision
import XCTest

/// Issue 48's rule, for every command and writer: an output never replaces an input, two outputs never share a
/// file, whatever the spelling of the paths (links, hard links, `./x`, `d/../x`). A breach is one line naming both,
/// exit 1, nothing written. And every spelling of an output path works or is refused in one line, never crashes.
final class OutputRuleTests: XCTestCase {
    let photo = CLI.images + "/face_frontal_1.png"

    /// Every file under `dir` with its bytes' checksum: what a refused run must leave as it was.
    func snapshot(_ dir: String) throws -> [String: Int] {
        var files: [String: Int] = [:]
        let fm = FileManager.default
        guard let e = fm.enumerator(atPath: dir) else { return files }
        while let name = e.nextObject() as? String {
            let path = dir + "/" + name
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { files[name] = -1; continue }
            files[name] = isDirectory.boolValue ? -2 : (fm.contents(atPath: path).map { Array($0).hashValue } ?? -3)
        }
        return files
    }

    /// A folder with a.png, b.jpg (copies, writable), c.png (a link to a test photo) and clip.mkv when ffmpeg is here.
    func makeInputs() throws -> String {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/photos", withIntermediateDirectories: true)
        try fm.copyItem(atPath: photo, toPath: dir + "/photos/a.png")
        try fm.copyItem(atPath: CLI.root + "/Examples/sample.jpg", toPath: dir + "/photos/b.jpg")
        try fm.createSymbolicLink(atPath: dir + "/photos/c.png", withDestinationPath: CLI.images + "/pose_yoga_1.png")
        for f in ["a.png", "b.jpg"] {
            try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/photos/" + f)
        }
        return dir
    }

    /// The trial of issue 48: outputs that would replace the photos and videos they are made from, each refused
    /// before any work with one line naming the output and the input, and every file left as it was.
    func testAnOutputNeverReplacesAnInput() throws {
        let dir = try makeInputs()
        let p = dir + "/photos"
        let fm = FileManager.default
        // A hard link and a symbolic link to an input, in a folder an output fills.
        try fm.createDirectory(atPath: dir + "/linked", withIntermediateDirectories: true)
        try fm.linkItem(atPath: p + "/a.png", toPath: dir + "/linked/a.png")
        try fm.createDirectory(atPath: dir + "/symlinked", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/symlinked/a.png", withDestinationPath: p + "/a.png")
        var cases: [(args: [String], cwd: String?, output: String, input: String)] = [
            (["segment", "--masks", ".", "a.png"], p, "--masks .", "a.png"),
            (["faces", "--overlay", ".", "a.png"], p, "--overlay .", "a.png"),
            (["objects", "--overlay", "./", "a.png", "b.jpg"], p, "--overlay ./", "a.png"),
            (["face-landmarks", "--overlay", "./", "./a.png"], p, "--overlay ./", "a.png"),
            (["segment", "--background", "green", "--overlay", p, p], nil, "--overlay \(p)", "a.png"),
            (["hands", "--overlay", "../photos", "a.png", "b.jpg"], p, "--overlay ../photos", "a.png"),
            (["pose", "--masks", dir + "/x/../photos", p + "/c.png"], nil, "--masks", "c.png"),
            (["faces", "--overlay", dir + "/linked", p + "/a.png"], nil, "--overlay \(dir)/linked", "a.png"),
            (["faces", "--overlay", dir + "/symlinked", p + "/a.png"], nil, "--overlay \(dir)/symlinked", "a.png"),
            (["faces", "--json", "--jobs", "2", "--overlay", p, p + "/a.png", p + "/b.jpg"], nil, "--overlay", "a.png"),
            (["pose", "samples", dir, "--out", p + "/a.png"], nil, "--out \(p)/a.png", "a.png"),
            (["gestures", "train", "--landmarks", p + "/b.jpg", "--out", "./b.jpg"], p, "--out ./b.jpg", "b.jpg"),
            (["model", "run", CLI.models + "/hand_landmarker.task:hand_detector.tflite", "--input", p + "/0.npy",
              "--out", p], nil, "--out \(p)", "0.npy"),
            (["faces", "--overlay", p + "/a.png", p + "/a.png"], nil, "--overlay \(p)/a.png", "a.png"),
        ]
        XCTAssertTrue(fm.createFile(atPath: p + "/0.npy", contents: Data("not read".utf8)))
        if CLI.ffmpeg != nil {
            try CLI.ffmpeg(["-framerate", "25", "-i", CLI.sequences + "/hand_asl_1/%04d.png", "-frames:v", "5",
                            "-c:v", "ffv1", p + "/clip.mkv"])
            try fm.createSymbolicLink(atPath: dir + "/clip-link.mkv", withDestinationPath: p + "/clip.mkv")
            cases += [
                (["segment", "--video", p + "/clip.mkv", "--background", "blur", "--overlay", p + "/clip.mkv"], nil,
                 "--overlay \(p)/clip.mkv", "clip.mkv"),
                (["segment", "--video", "clip.mkv", "--overlay", "../clip-link.mkv"], p, "--overlay ../clip-link.mkv",
                 "clip.mkv"),
                (["hands", "--video", CLI.sequences + "/hand_asl_1", "--overlay", CLI.sequences + "/hand_asl_1"], nil,
                 "--overlay", "hand_asl_1/0000.png"),
            ]
        }
        let before = try snapshot(dir)
        for c in cases {
            let r = try CLI.run(c.args, directory: c.cwd)
            XCTAssertEqual(r.status, 1, "\(c.args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(c.args): no work is done")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("vision: \(c.output)"), "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("would replace the input "), "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(c.input + ";"), "\(c.args): names the input \(c.input): \(r.stderr)")
        }
        XCTAssertEqual(try snapshot(dir), before, "nothing written, nothing replaced")
    }

    /// With --stdin an input is checked as it is taken: the one whose overlay would replace it gets an error record,
    /// the others run.
    func testWorkerInputsAreCheckedAsTheyCome() throws {
        let dir = try makeInputs()
        let p = dir + "/photos"
        let before = try snapshot(p)
        let r = try CLI.run(["faces", "--json", "--stdin", "--overlay", p], input: CLI.images + "/faces_two_1.png\n"
                            + p + "/a.png\n")
        XCTAssertEqual(r.status, 1, r.stderr)
        let records = try CLI.jsonLines(r.stdout)
        XCTAssertEqual(records.count, 4, r.stdout)
        XCTAssertEqual(records[2]["input"] as? String, p + "/a.png")
        XCTAssertTrue((records[2]["error"] as? String)?.hasSuffix("--overlay \(p): would replace the input \(p)/a.png; "
                                                                 + "an output never replaces an input") == true,
                      "\(records[2])")
        var after = try snapshot(p)
        XCTAssertNotNil(after.removeValue(forKey: "faces_two_1.png"), "the first input's overlay is written")
        XCTAssertEqual(after, before)
    }

    /// Two outputs of one run never share a file: `--masks d --overlay d`, the same folder spelled twice, a
    /// category mask beside an input of that name, a video's frames beside a photo of such a name.
    func testTwoOutputsNeverShareAFile() throws {
        let dir = try makeInputs()
        let p = dir + "/photos"
        try FileManager.default.copyItem(atPath: p + "/a.png", toPath: p + "/a_category.png")
        var cases: [([String], String)] = [
            (["segment", "--masks", dir + "/d", "--overlay", dir + "/d", p + "/a.png"],
             "--masks \(dir)/d and --overlay \(dir)/d would both write \(dir)/d/a.png; give them different places"),
            (["segment", "--masks", "d", "--overlay", "./d/", "photos/a.png"],
             "--masks d and --overlay ./d/ would both write ./d/a.png; give them different places"),
            (["segment", "--masks", dir + "/m", "--category-mask", p + "/a.png", p + "/a_category.png"],
             "--masks \(dir)/m: \(p)/a.png and \(p)/a_category.png would both write \(dir)/m/a_category.png; give "
                + "inputs of distinct names (or run them into separate folders)"),
            (["hands", "--overlay", dir + "/o", dir + "/face_frontal_1.png",
              CLI.images + "/../images/face_frontal_1.png"],
             "would both write \(dir)/o/face_frontal_1.png; give inputs of distinct names"),
        ]
        try FileManager.default.copyItem(atPath: photo, toPath: dir + "/face_frontal_1.png")
        if CLI.ffmpeg != nil {
            try CLI.ffmpeg(["-framerate", "25", "-i", CLI.sequences + "/hand_asl_1/%04d.png", "-frames:v", "3",
                            "-c:v", "ffv1", dir + "/clip.mkv"])
            try FileManager.default.copyItem(atPath: p + "/a.png", toPath: dir + "/clip_000002.png")
            cases.append((["hands", "--jobs", "2", "--overlay", dir + "/o", dir + "/clip.mkv",
                           dir + "/clip_000002.png"],
                          "would both write \(dir)/o/clip_"))
        }
        let before = try snapshot(dir)
        for (args, message) in cases {
            let r = try CLI.run(args, directory: dir)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("vision: "), r.stderr)
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try snapshot(dir), before)
    }

    /// Every spelling of an output folder works or is refused in one line: never a crash (a one-letter first part
    /// crashed Foundation's deletingLastPathComponent with SIGILL), never a file somewhere else.
    func testOutputFolderSpellings() throws {
        let root = try CLI.temporaryDirectory(removedAfter: self)
        let cwd = root + "/work"
        try FileManager.default.createDirectory(atPath: cwd + "/a", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: cwd + "/dangling", withDestinationPath: "nowhere/x")
        let latin1 = "caf\u{F7E9}"
        // (spelling, where the mask lands relative to the working folder, or the refusal)
        let table: [(String, String)] = [
            ("m", "m/face_frontal_1.png"), ("m/", "m/face_frontal_1.png"), ("./o", "o/face_frontal_1.png"),
            ("a/b", "a/b/face_frontal_1.png"), ("x/y/z", "x/y/z/face_frontal_1.png"), (".", "face_frontal_1.png"),
            ("..", "../face_frontal_1.png"), ("a/../n", "n/face_frontal_1.png"), ("", "refused: an empty path"),
            ("dangling", "refused: a dangling symbolic link"), ("dangling/sub", "refused: a dangling symbolic link"),
            (latin1, latin1 + "/face_frontal_1.png"),
        ]
        for (spelling, outcome) in table {
            // A name that is not UTF-8 goes through the shell, which passes its bytes as they are.
            let r = spelling == latin1
                ? try CLI.run(["-c", "'\(CLI.executable)' segment '\(photo)' --masks \"$(printf 'caf\\351')\""],
                              executable: "/bin/bash", directory: cwd)
                : try CLI.run(["segment", photo, "--masks", spelling], directory: cwd)
            if outcome.hasPrefix("refused: ") {
                XCTAssertEqual(r.status, 1, "'\(spelling)': \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "'\(spelling)': \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(String(outcome.dropFirst(9))), "'\(spelling)': \(r.stderr)")
            } else {
                XCTAssertEqual(r.status, 0, "'\(spelling)': \(r.stderr)")
                let written = NativePath.withCString(cwd + "/" + outcome) { access($0, F_OK) } == 0
                XCTAssertTrue(written, "'\(spelling)' writes \(outcome)")
                _ = NativePath.withCString(cwd + "/" + outcome) { unlink($0) }
            }
        }
        // A file output of every spelling: the one-photo overlay.
        for (spelling, outcome) in [("o.png", "o.png"), ("./p.png", "p.png"), ("a/q.png", "a/q.png"),
                                    ("../r.png", "../r.png"), ("s.png/", "s.png/face_frontal_1.png"),
                                    ("nofolder/t.png", "refused: no such folder nofolder"),
                                    ("dangling", "refused: a dangling symbolic link")] {
            let r = try CLI.run(["faces", photo, "--overlay", spelling], directory: cwd)
            if outcome.hasPrefix("refused: ") {
                XCTAssertEqual(r.status, 1, "'\(spelling)': \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(String(outcome.dropFirst(9))), "'\(spelling)': \(r.stderr)")
            } else {
                XCTAssertEqual(r.status, 0, "'\(spelling)': \(r.stderr)")
                XCTAssertTrue(FileManager.default.fileExists(atPath: cwd + "/" + outcome), "'\(spelling)'")
            }
        }
    }

    /// The policy's checks over a table of spellings, file and folder outputs alike: each returns or throws an
    /// `OutputError` with a message, for any text (the fuzz target FuzzOutputPath runs the same on random bytes).
    func testOutputChecksTakeAnySpelling() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: "nowhere")
        let spellings = ["o", "o/", "./o", "a/b", "..", ".", "/", "", "//", "./", "a//b", "a/./b/../c", "m",
                         dir + "/dangling", dir + "/dangling/x", "caf\u{F7E9}/x", "\u{F7FF}", "-", "~", " ", "a\nb"]
        for s in spellings {
            for check in [{ try OutputPath.folder(s, option: "--masks") },
                          { _ = try OutputPath.file(s, option: "--out") }] {
                do { try check() } catch let e as OutputError {
                    XCTAssertFalse("\(e)".isEmpty)
                    XCTAssertFalse("\(e)".contains("Error Domain"), "\(e)")
                } catch { XCTFail("'\(s)': \(error)") }
            }
            _ = OutputPath.canonical(s)
            _ = OutputPath.canonicalEntry(s)
            XCTAssertFalse(PathText.parent(s).count > s.count)
        }
        XCTAssertThrowsError(try OutputPath.folder("", option: "--masks")) { e in
            XCTAssertEqual("\(e)", "--masks \"\": an empty path; give a folder")
        }
        XCTAssertThrowsError(try OutputPath.file(dir + "/dangling", option: "--out")) { e in
            XCTAssertEqual("\(e)", "--out \(dir)/dangling: a dangling symbolic link (to nowhere, which does not "
                           + "exist); remove it or give another path")
        }
        XCTAssertThrowsError(try OutputPath.file("/", option: "--out")) { e in
            XCTAssertEqual("\(e)", "--out /: is a folder, not a file; give a file path")
        }
        // Canonical paths: one file however it is spelled.
        let here = OutputPath.workingFolder
        XCTAssertEqual(OutputPath.canonical("x"), OutputPath.canonical("./x"))
        XCTAssertEqual(OutputPath.canonical("new/../x"), PathText.join(OutputPath.realPath(here) ?? here, "x"))
        XCTAssertEqual(OutputPath.canonical(dir + "/n/./m/"), (OutputPath.realPath(dir) ?? dir) + "/n/m")
    }

    /// The inputs FuzzOutputPath found (Tests/Fixtures/fuzz/FuzzOutputPath), through the target's calls: ".." read
    /// past a directory entry (NativePath.contentsOfDirectory copied the whole d_name field; ASan, which
    /// tools/sanitize.sh runs this suite under, saw it).
    func testFuzzFindings() throws {
        let dir = CLI.root + "/Tests/Fixtures/fuzz/FuzzOutputPath"
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let path = NativePath.decode(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
                .filter { $0 != 0 })
            XCTAssertTrue(OutputPath.canonical(path).hasPrefix("/"), name)
            do { try OutputPath.folder(path, option: "--masks") } catch is OutputError {}
            do { _ = try OutputPath.file(path, option: "--out") } catch is OutputError {}
            _ = try? OverlayPath.kind(path)
        }
        // Names of every length, one byte to 255, read back whole from the entries (one not UTF-8).
        let folder = try CLI.temporaryDirectory(removedAfter: self)
        var made: Set<String> = []
        for length in [1, 2, 3, 7, 8, 9, 15, 16, 17, 100, 254, 255] {
            let name = String(repeating: "n", count: length - 1) + "\(length % 10)"
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil))
            made.insert(name)
        }
        let latin1 = NativePath.decode([0x63, 0xE9])
        let fd = NativePath.withCString(folder + "/" + latin1) { creat($0, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        made.insert(latin1)
        XCTAssertEqual(Set(NativePath.contentsOfDirectory(folder) ?? []), made)
    }

    /// Paths split by hand: the table Foundation's functions trapped on, and the rest.
    func testPathText() {
        let table: [(String, parent: String, last: String, ext: String, stem: String)] = [
            ("m", "", "m", "", "m"), ("m/", "", "m", "", "m"), (".", "", ".", "", "."), ("..", "", "..", "", ".."),
            ("/", "/", "/", "", "/"), ("", "", "", "", ""), ("a/b", "a", "b", "", "b"), ("/b", "/", "b", "", "b"),
            ("a/b.PNG", "a", "b.PNG", "PNG", "b"), ("a//b/", "a", "b", "", "b"),
            (".hidden", "", ".hidden", "", ".hidden"),
            ("c1/a.tar.gz", "c1", "a.tar.gz", "gz", "a.tar"), ("x.", "", "x.", "", "x."),
        ]
        for (path, parent, last, ext, stem) in table {
            XCTAssertEqual(PathText.parent(path), parent, path)
            XCTAssertEqual(PathText.lastComponent(path), last, path)
            XCTAssertEqual(PathText.fileExtension(path), ext, path)
            XCTAssertEqual(PathText.stem(path), stem, path)
        }
        XCTAssertEqual(PathText.folder("b"), ".")
        XCTAssertEqual(PathText.join("a/", "b"), "a/b")
        XCTAssertEqual(PathText.components("./a//b/."), ["a", "b"])
    }

    /// A dangling link or an empty string as an output is refused before work in one line, for every writer; no
    /// Foundation error text (NSCocoaErrorDomain) reaches the user.
    func testDanglingAndEmptyOutputs() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: dir + "/gone/x")
        let model = CLI.models + "/hand_landmarker.task:hand_detector.tflite"
        for out in ["", dir + "/dangling"] {
            let runs: [[String]] = [
                ["faces", photo, "--overlay", out], ["segment", photo, "--masks", out],
                ["pose", "samples", dir, "--out", out], ["model", "run", model, "--out", out],
                ["gestures", "landmarks", dir, "--out", out], ["models", "fetch", "--out", out],
            ]
            for args in runs {
                let r = try CLI.run(args)
                XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(out.isEmpty ? "an empty path" : "a dangling symbolic link"),
                              "\(args): \(r.stderr)")
                XCTAssertFalse(r.stderr.contains("NSCocoaErrorDomain") || r.stderr.contains("Error Domain"), r.stderr)
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["dangling"])
        // Foundation's own errors, in our words.
        let cocoa = NSError(domain: NSCocoaErrorDomain, code: NSFileWriteFileExistsError,
                            userInfo: [NSFilePathErrorKey: "/tmp/x",
                                       NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EEXIST))])
        XCTAssertEqual(ErrorText.describe(cocoa), "/tmp/x: File exists")
        XCTAssertEqual(ErrorText.describe(CocoaError(.fileWriteOutOfSpace, userInfo: [NSFilePathErrorKey: "o.png"])),
                       "o.png: No space left on device")
        XCTAssertEqual(ErrorText.escaped("identifier 'PK\u{3}\u{4}'"), "identifier 'PK\\x03\\x04'")
    }

    /// Read-only places are named one way by every writer: "PLACE is read-only (reason)".
    func testReadOnlyPlacesAreNamedOneWay() throws {
        // /proc/self cannot be written into, even by root.
        guard access("/proc/self", W_OK) != 0 else { throw XCTSkip("/proc/self is writable here") }
        let reason = String(cString: strerror(errno))
        let model = CLI.models + "/hand_landmarker.task:hand_detector.tflite"
        let runs: [([String], String)] = [
            (["faces", photo, "--overlay", "/proc/self/ov"], "--overlay /proc/self/ov"),
            (["faces", photo, "--overlay", "/proc/self/o.png"], "--overlay /proc/self/o.png"),
            (["segment", photo, "--masks", "/proc/self/m/n"], "--masks /proc/self/m/n"),
            (["pose", "samples", CLI.images, "--out", "/proc/self/s.csv"], "--out /proc/self/s.csv"),
            (["model", "run", model, "--out", "/proc/self/out"], "--out /proc/self/out"),
            (["models", "fetch", "--out", "/proc/self/models"], "--out /proc/self/models"),
        ]
        for (args, option) in runs {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr, "vision: \(option): /proc/self is read-only (\(reason))\n", "\(args)")
        }
        XCTAssertEqual(OutputPath.readOnly("d", code: EROFS), "d is read-only (Read-only file system)")
    }
}
