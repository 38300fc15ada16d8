import Foundation
@testable import vision
import XCTest

/// The decoder's log is read with its levels (`-loglevel level+info`): errors are told from information,
/// and the frames' `showinfo` lines still parse with a level after their source.
final class FFmpegLogTests: XCTestCase {
    func testLevelsAndSources() {
        let error = FFmpegLogLine("[h264 @ 0x55cf61365180] [error] error while decoding MB 35 25, bytestream -11")
        XCTAssertEqual(error.source, "h264")
        XCTAssertEqual(error.level, "error")
        XCTAssertTrue(error.isError)
        XCTAssertEqual(error.message, "h264: error while decoding MB 35 25, bytestream -11")
        let bare = FFmpegLogLine("[error] clip.mp4: Invalid data found when processing input")
        XCTAssertNil(bare.source)
        XCTAssertTrue(bare.isError)
        XCTAssertEqual(bare.message, "clip.mp4: Invalid data found when processing input")
        let info = FFmpegLogLine("[h264 @ 0x1] [info] concealing 410 DC, 410 AC, 410 MV errors in I frame")
        XCTAssertFalse(info.isError)
        XCTAssertFalse(FFmpegLogLine("[warning] something").isError)
        // Without levels (the overlay writer's log) a line is never an error by its level.
        XCTAssertNil(FFmpegLogLine("[mkv @ 0x1] something else").level)
    }

    func testErrorsAndFramesFromALevelledLog() {
        let queue = FrameInfoQueue()
        for line in [
            "[Parsed_showinfo_0 @ 0x55cf] [info] config in time_base: 1/90000, frame_rate: 30/1",
            "[Parsed_showinfo_0 @ 0x55cf] [info] n:   0 pts:   3000 pts_time:0.0333333 pos: 564 fmt:yuv420p "
                + "s:576x576 i:P iskey:1 type:I",
            "[h264 @ 0x55cf] [error] error while decoding MB 16 23, bytestream -7",
            "[info] frame=    1 fps=0.0 q=-0.0 Lsize=     972kB time=00:00:00.03",
        ] { queue.parse(line) }
        queue.end()
        var infos: [FrameInfo] = []
        while let i = queue.next() { infos.append(i) }
        XCTAssertEqual(infos.map(\.width), [576])
        XCTAssertEqual(infos.map(\.milliseconds), [3000 * 1000 / 90000])
        XCTAssertEqual(queue.frameRate, 30)
        XCTAssertEqual(queue.errors, ["h264: error while decoding MB 16 23, bytestream -7"])
    }
}
