import Foundation
import TasksVisionFormat
import XCTest

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4 example messages.
    func testKnownDigests() {
        XCTAssertEqual(SHA256.hexDigest(of: []), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hexDigest(of: Array("abc".utf8)),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Any split of the message into updates gives the digest of the whole.
    func testUpdatesInPiecesMatchTheWhole() {
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hexDigest(of: message)
        for step in [1, 3, 55, 63, 64, 65, 128, 999] {
            var hash = SHA256()
            var i = 0
            while i < message.count {
                hash.update(Array(message[i..<min(i + step, message.count)]))
                i += step
            }
            XCTAssertEqual(hash.hexDigest(), whole, "pieces of \(step)")
        }
    }

    func testModelFileMatchesItsManifestLine() throws {
        let path = try FormatTestPaths.model("canned_gesture_classifier.tflite")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(SHA256.hexDigest(of: bytes), "62a87ded76da05155f6a59c8babb4c537c138c25138b29450fb030e207a5c0e9")
    }
}
