import Foundation
@testable import vision
import XCTest

/// The output-path policy (`OutputPath`, `OutputFile`), signals and write errors of issue 45, piece by piece and
/// through the command line. tools/fault_injection.sh runs every command under these faults.
final class OutputPolicyTests: XCTestCase {
    // MARK: - The policy's pieces

    func testFileOutputRefusesFoldersDevicesAndFIFOs() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        try FileManager.default.createDirectory(atPath: dir + "/victim", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(dir + "/fifo", 0o600), 0)
        for (path, kind) in [(dir + "/victim", "a folder"), ("/dev/null", "a device"), (dir + "/fifo", "a FIFO")] {
            XCTAssertThrowsError(try OutputPath.file(path, option: "--out")) { error in
                XCTAssertEqual("\(error)", "--out \(path): is \(kind), not a file; give a file path")
            }
        }
        XCTAssertThrowsError(try OutputPath.file(dir + "/missing/x.csv", option: "--out")) { error in
            XCTAssertEqual("\(error)", "--out \(dir)/missing/x.csv: no such folder \(dir)/missing")
        }
        // A new file and an existing regular file are fine.
        XCTAssertEqual(try OutputPath.file(dir + "/new.csv", option: "--out"), dir + "/new.csv")
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/old.csv"))
        XCTAssertEqual(try OutputPath.file(dir + "/old.csv", option: "--out"), dir + "/old.csv")
    }

    func testLinksAreFollowedAsTheShellDoes() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/target.csv"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: "target.csv")
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.csv", withDestinationPath: "new.csv")
        try FileManager.default.createSymbolicLink(atPath: dir + "/to-folder", withDestinationPath: dir)
        XCTAssertEqual(try OutputPath.file(dir + "/link.csv", option: nil), dir + "/target.csv")
        // A dangling link is refused (issue 48): writing through it would make a file the command line never named.
        XCTAssertThrowsError(try OutputPath.file(dir + "/dangling.csv", option: "--out")) { error in
            XCTAssertEqual("\(error)", "--out \(dir)/dangling.csv: a dangling symbolic link (to new.csv, which does not "
                           + "exist); remove it or give another path")
        }
        XCTAssertThrowsError(try OutputPath.file(dir + "/to-folder", option: "--out")) { error in
            XCTAssertTrue("\(error)".contains("is a folder (the link's target \(dir))"), "\(error)")
        }
        // Written through the link: the link stays, its target is replaced.
        let target = try OutputPath.file(dir + "/link.csv", option: nil)
        try OutputFile.write(Array("new".utf8), to: target)
        XCTAssertEqual(OutputPath.kind(dir + "/link.csv"), .symlink)
        XCTAssertEqual(try String(contentsOfFile: dir + "/target.csv", encoding: .utf8), "new")
    }

    func testFolderOutputRefusesAFileOrDevice() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        XCTAssertThrowsError(try OutputPath.folder(dir + "/file", option: "--out")) { error in
            XCTAssertEqual("\(error)", "--out \(dir)/file: is a file, not a folder")
        }
        XCTAssertThrowsError(try OutputPath.folder(dir + "/file/sub", option: "--out")) { error in
            XCTAssertEqual("\(error)", "--out \(dir)/file/sub: \(dir)/file is a file, not a folder")
        }
        XCTAssertThrowsError(try OutputPath.folder("/dev/null", option: "--out")) { error in
            XCTAssertEqual("\(error)", "--out /dev/null: is a device, not a folder")
        }
        XCTAssertNoThrow(try OutputPath.folder(dir + "/new/deeper", option: "--out"))
    }

    /// Temporary names are hidden, end in no image or video extension, and stale ones (of a process that no longer
    /// runs) are removed while a running process's are kept.
    func testPartialFilesAreHiddenAndStaleOnesRemoved() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let temp = (OutputFile.temporaryName(for: dir + "/a.png") as NSString).lastPathComponent
        XCTAssertTrue(temp.hasPrefix(".a.png.vision-partial-\(getpid())-"), temp)
        let ext = (temp as NSString).pathExtension.lowercased()
        XCTAssertFalse(FrameInput.imageExtensions.contains(ext) || VideoOutput.extensions.contains(ext), temp)
        // A process id that is not running: the largest pid_t is never one.
        let stale = dir + "/.b.png.vision-partial-2147483646-3"
        let running = dir + "/.c.png.vision-partial-1-1"
        let mine = dir + "/.d.png.vision-partial-\(getpid())-9"
        let other = dir + "/.e.png.partial"
        for p in [stale, running, mine, other] {
            XCTAssertTrue(FileManager.default.createFile(atPath: p, contents: nil))
        }
        OutputFile.removeStale(in: dir)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        for p in [running, mine, other] { XCTAssertTrue(FileManager.default.fileExists(atPath: p), p) }
    }

    func testTwoInputsCannotClaimOneOutput() throws {
        let path = "/nowhere/\(UUID().uuidString).png"
        XCTAssertNoThrow(try OutputFile.claim(path, by: "c1/a.png"))
        XCTAssertNoThrow(try OutputFile.claim(path, by: "c1/a.png"))
        XCTAssertThrowsError(try OutputFile.claim(path, by: "c2/a.png")) { error in
            XCTAssertTrue("\(error)".hasPrefix("c2/a.png: its output \(path) was written from c1/a.png"), "\(error)")
        }
    }

    func testFullDeviceIsNamed() throws {
        XCTAssertThrowsError(try OutputFile.writeAll([1, 2, 3], to: "/dev/full", name: "x.png")) { error in
            XCTAssertEqual("\(error)", "cannot write x.png: No space left on device")
        }
    }

    func testOptionAliases() throws {
        let parsed = try ModelCommand.runTable.parse(["m.tflite", "--output", "d"])
        XCTAssertEqual(parsed.string("--out"), "d")
        XCTAssertEqual(try ModelsFetchCommand.table.parse(["--to", "d"]).string("--out"), "d")
        XCTAssertEqual(try HandsCommand.table.parse(["-j", "2", "a.png"]).string("--jobs"), "2")
        XCTAssertThrowsError(try HandsCommand.table.parse(["-x", "a.png"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown option '-x' for 'vision hands' "
                           + "(see vision hands --help)")
        }
    }

    // MARK: - Through the command line

    /// The trial of issue 45: `--out` an existing folder holding files, or the dataset itself, is refused before
    /// any image is read, and the folder is left as it was.
    func testSamplesOutIntoAFolderIsRefused() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/photos/yoga", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/photos/yoga/pose_yoga_1.png",
                                  withDestinationPath: CLI.images + "/pose_yoga_1.png")
        try fm.createDirectory(atPath: dir + "/victim", withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/victim/keep"))
        for out in [dir + "/victim", dir + "/photos"] {
            let r = try CLI.run(["pose", "samples", dir + "/photos", "--out", out])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stderr, "vision: --out \(out): is a folder, not a file; give a file path\n")
        }
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir + "/victim"), ["keep"])
        XCTAssertTrue(fm.fileExists(atPath: dir + "/photos/yoga/pose_yoga_1.png"))
        let device = try CLI.run(["gestures", "landmarks", dir + "/photos", "--out", "/dev/full"])
        XCTAssertEqual(device.status, 1)
        XCTAssertEqual(device.stderr, "vision: --out /dev/full: is a device, not a file; give a file path\n")
    }

    /// `pose samples` skips an unreadable image (zero bytes, text named .jpg, a dangling link, a comma in the name)
    /// and names it, as `gestures train` does.
    func testSamplesSkipUnreadableImages() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/photos/yoga", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/photos/yoga/pose_yoga_1.png",
                                  withDestinationPath: CLI.images + "/pose_yoga_1.png")
        XCTAssertTrue(fm.createFile(atPath: dir + "/photos/yoga/empty.png", contents: Data()))
        XCTAssertTrue(fm.createFile(atPath: dir + "/photos/yoga/text.jpg", contents: Data("hello".utf8)))
        try fm.createSymbolicLink(atPath: dir + "/photos/yoga/dangling.png", withDestinationPath: dir + "/none.png")
        try fm.createSymbolicLink(atPath: dir + "/photos/yoga/a,b.png",
                                  withDestinationPath: CLI.images + "/pose_yoga_2.png")
        let r = try CLI.run(["pose", "samples", dir + "/photos", "--out", dir + "/s.csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in ["empty.png", "text.jpg", "dangling.png", "a,b.png"] {
            XCTAssertTrue(r.stderr.contains("vision: skipped \(dir)/photos/yoga/\(name): "), r.stderr)
        }
        XCTAssertTrue(r.stdout.hasPrefix("\(dir)/s.csv: 1 sample of 1 class (4 unreadable images skipped)"), r.stdout)
    }

    func testVideoOnlyOptionsAndFrameRates() throws {
        let smooth = try CLI.run(["hands", "--smooth", CLI.images + "/hand_victory_1.png"])
        XCTAssertEqual(smooth.status, 1)
        XCTAssertEqual(smooth.stderr, "vision: --smooth applies to --video input, not to images\n")
        let fps = try CLI.run(["faces", "--fps", "1001", "--video", CLI.sequences + "/hand_asl_1"])
        XCTAssertEqual(fps.stderr, "vision: --fps 1001 is out of range: at most 1000 (timestamps are whole "
                       + "milliseconds and must increase)\n")
        // At 1000 frames a second every frame still gets a later timestamp.
        let r = try CLI.run(["faces", "--json", "--fps", "1000", "--max-frames", "4", "--video",
                             CLI.sequences + "/hand_asl_1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 4)
        XCTAssertTrue(r.stdout.contains("\"timestampMs\":3"), r.stdout)
    }

    func testVersionAndShortJobs() throws {
        let v = try CLI.run(["--version"])
        XCTAssertEqual(v.status, 0)
        XCTAssertEqual(v.stdout, "vision \(VisionVersion.version) (TasksVision)\n")
        let image = CLI.images + "/hand_victory_1.png"
        let short = try CLI.run(["hands", "--json", "-j", "2", image, image])
        let long = try CLI.run(["hands", "--json", "--jobs", "2", image, image])
        XCTAssertEqual(short.status, 0, short.stderr)
        XCTAssertEqual(short.stdout, long.stdout)
    }

    func testBadPoseModelIsReportedOnce() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let bad = dir + "/BAD.task"
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: bad))
        let image = CLI.images + "/pose_yoga_1.png"
        for args in [["pose", "--model", bad, image, image], ["pose", "--json", "--jobs", "2", "--model", bad, image,
                                                              image]] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(bad), r.stderr)
        }
    }

    /// `hands --json img > /dev/full` exits 0 no more; a closed pipe ends the run quietly.
    func testStandardOutputErrors() throws {
        let image = CLI.images + "/hand_victory_1.png"
        let full = try shell("'\(CLI.executable)' hands --json '\(image)' 2>&1 > /dev/full; echo \"status $?\"")
        XCTAssertEqual(full, "vision: cannot write standard output: No space left on device\nstatus 1\n")
        let piped = try shell("'\(CLI.executable)' hands --json '\(image)' '\(image)' '\(image)' | head -c 1 "
                              + ">/dev/null; echo \"status ${PIPESTATUS[0]}\"")
        XCTAssertEqual(piped, "status 141\n")
    }

    /// Ctrl-C during a video with an overlay video: exit 130 within 2.5 s, the overlay closed as a playable file,
    /// no partial file, no ffmpeg left; in worker mode the input in progress gets an `interrupted` record.
    func testInterruptEndsAVideoCleanly() throws {
        let ffmpeg = try CLI.requireFFmpeg()
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let clip = dir + "/clip.mkv"
        try CLI.ffmpeg(["-stream_loop", "40", "-framerate", "25", "-i", CLI.sequences + "/hand_asl_1/%04d.png",
                        "-c:v", "mpeg4", "-q:v", "8", clip])
        let vision = CLI.executable
        let out = try shell("""
            '\(vision)' hands --json --video '\(clip)' --overlay '\(dir)/o.mp4' > '\(dir)/out' 2>'\(dir)/err' &
            p=$!; sleep 3; kill -INT $p; t0=$(date +%s%N); wait $p; s=$?
            echo "status $s ms $(( ($(date +%s%N) - t0) / 1000000 ))"
            printf '\(clip)\\n' | '\(vision)' hands --json --stdin > '\(dir)/rec' 2>/dev/null &
            p=$!; sleep 3; kill -TERM $p; wait $p; echo "worker $?"
            """)
        let words = out.split(whereSeparator: \.isWhitespace)
        XCTAssertEqual(words.count, 6, out)
        XCTAssertEqual(words.first.map(String.init), "status")
        XCTAssertEqual(words.dropFirst().first.map(String.init), "130", out)
        XCTAssertLessThan(Int(words[3]) ?? 99999, 2500, out)
        XCTAssertEqual(words.last.map(String.init), "130", out)
        XCTAssertEqual(try String(contentsOfFile: dir + "/err", encoding: .utf8), "vision: interrupted\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertFalse(names.contains { $0.contains(OutputFile.marker) }, "\(names)")
        let ffprobe = (ffmpeg as NSString).deletingLastPathComponent + "/ffprobe"
        let probe = try CLI.run(["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                 "-of", "csv=p=0", dir + "/o.mp4"], executable: ffprobe)
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertGreaterThan(Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 0, probe.stdout)
        let records = try String(contentsOfFile: dir + "/rec", encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(records.last?.hasPrefix("{\"input\":\"\(clip)\",\"interrupted\":true,\"frames\":") == true,
                      "\(records.last ?? "")")
    }

    /// A file name that is not UTF-8 (Latin-1 "café.png") is read, from a folder and as an argument, and round-trips:
    /// JSON writes its byte as \udce9 (Python's os.fsencode gives the bytes back), a summary line prints the bytes.
    func testFileNamesThatAreNotUTF8() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let name = "caf\u{F7E9}.png"
        XCTAssertEqual(NativePath.decode(Array("caf".utf8) + [0xE9] + Array(".png".utf8)), name)
        XCTAssertEqual(NativePath.bytes(name), Array("caf".utf8) + [0xE9] + Array(".png".utf8))
        XCTAssertEqual(NativePath.decode(Array("café".utf8)), "café")
        XCTAssertEqual(NativePath.escapingJSON("{\"file\":\"\(name)\"}"), "{\"file\":\"caf\\udce9.png\"}")
        let image = CLI.images + "/hand_victory_1.png"
        let copy = try shell("cp '\(image)' \"\(dir)/$(printf 'caf\\351.png')\" && echo ok")
        XCTAssertEqual(copy, "ok\n")
        let folder = try shell("'\(CLI.executable)' hands --json '\(dir)'")
        XCTAssertTrue(folder.hasPrefix("{\"file\":\"\(dir)/caf\\udce9.png\",\"height\":"), folder)
        let argument = try shell("'\(CLI.executable)' hands \"\(dir)/$(printf 'caf\\351.png')\" "
                                 + "| od -An -c | tr -s ' '")
        XCTAssertTrue(argument.contains("c a f 351 . p n g :"), argument)
    }

    private func shell(_ script: String) throws -> String {
        let r = try CLI.run(["-c", script], executable: "/bin/bash")
        return r.stdout
    }
}
