import Foundation
import XCTest

final class OptionRangeTests: XCTestCase {
    /// Every option value is checked when parsed: one line naming the option, the value and the allowed range.
    func testOutOfRangeValuesNameOptionValueAndRange() throws {
        let image = CLI.images + "/hands_two_1.png"
        for (args, needles) in [
            (["gestures", "--score-threshold", "2"], ["--score-threshold", "2", "[0, 1]"]),
            (["faces", "--min-detection-confidence", "-0.1"], ["--min-detection-confidence", "-0.1", "[0, 1]"]),
            (["faces", "--min-suppression-threshold", "1.5"], ["--min-suppression-threshold", "1.5", "[0, 1]"]),
            (["hands", "--num-hands", "0"], ["--num-hands", "0", ">= 1"]),
            (["hands", "--num-hands", "1.5"], ["--num-hands", "1.5", "whole number"]),
            (["hands", "--min-hand-presence-confidence", "nan"], ["--min-hand-presence-confidence", "nan"]),
            (["pose", "--threads", "65"], ["--threads", "65", "1...64"]),
            (["pose", "--threads", "0"], ["--threads", "0", "1...64"]),
            (["faces", "--fps", "0", "--video", CLI.sequences + "/hand_asl_1"], ["--fps", "0", "> 0"]),
            (["faces", "--max-frames", "0", "--video", CLI.sequences + "/hand_asl_1"], ["--max-frames", ">= 1"]),
            (["model", "run", "--threads", "100", "m.tflite"], ["--threads", "100", "1...64"]),
            (["pose", "--mode", "sometimes"], ["--mode", "sometimes", "stream or single-image"]),
            (["faces", "--orientation", "sideways"], ["--orientation", "sideways", "EXIF"]),
            (["faces", "--threads"], ["--threads", "whole number"]),
        ] {
            let r = try CLI.run(args + [image])
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            for n in needles { XCTAssertTrue(r.stderr.contains(n), "\(args): '\(n)' in \(r.stderr)") }
            XCTAssertEqual(r.stdout, "", "\(args): nothing runs")
        }
        // The bounds themselves are allowed.
        let edge = try CLI.run(["faces", "--min-detection-confidence", "1", "--threads=64", image])
        XCTAssertEqual(edge.status, 0, edge.stderr)
    }
}
