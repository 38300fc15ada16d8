import Foundation
@testable import vision
import XCTest

/// The decoder's frame sizes and timestamps come from ffmpeg's `showinfo` log lines.
final class ShowinfoParsingTests: XCTestCase {
    func testFramesTakeTheStreamTimeBase() {
        let queue = FrameInfoQueue()
        for line in [
            "[Parsed_showinfo_0 @ 0x55cf74669680] config in time_base: 1/90000, frame_rate: 30000/1001",
            "[Parsed_showinfo_0 @ 0x55cf74669680] n:   0 pts:      0 pts_time:0       pos: 595 fmt:bgr0 sar:0/1 "
                + "s:576x576 i:P iskey:1 type:I checksum:46EC5812",
            "[Parsed_showinfo_0 @ 0x55cf74669680] color_range:pc color_space:gbr",
            "[Parsed_showinfo_0 @ 0x55cf74669680] n:   1 pts: 90000000 pts_time:1000    pos: 9 fmt:bgr0 s:620x1080 i:P",
            "[Parsed_showinfo_0 @ 0x55cf74669680] n:   2 pts:NOPTS pts_time:NOPTS pos: 9 fmt:bgr0 s:620x1080 i:P",
            "[mkv @ 0x1] something else",
        ] { queue.parse(line) }
        queue.end()
        var infos: [FrameInfo] = []
        while let i = queue.next() { infos.append(i) }
        XCTAssertEqual(infos.map(\.width), [576, 620, 620])
        XCTAssertEqual(infos.map(\.height), [576, 1080, 1080])
        XCTAssertEqual(infos.map(\.milliseconds), [0, 1_000_000, nil])
        XCTAssertEqual(queue.frameRate ?? 0, 29.97, accuracy: 0.01)

        // Timestamps are strictly increasing milliseconds, a camera's counted from its first frame.
        var clock = FrameClock(startAtZero: true)
        let times: [Double?] = [5000.4, 5033.3, 5033.4, nil, 5100]
        let ms = times.map { clock.milliseconds(FrameInfo(width: 1, height: 1, milliseconds: $0)) }
        XCTAssertEqual(ms, [0, 33, 34, 67, 100])
    }
}
