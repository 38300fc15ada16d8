import Foundation
import TasksVisionImageIO
import XCTest

/// `vision segment --model deeplab_v3.tflite`: a mask per class, MediaPipe's category mask
/// (Tests/Fixtures/deeplab, tools/reference_deeplab.py), each class's share, and --keep with --background.
final class DeeplabSegmentCommandTests: XCTestCase {
    static let model = CLI.models + "/deeplab_v3.tflite"

    static func fixture() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLI.root + "/Tests/Fixtures/deeplab/deeplab.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    func testMasksPerClassAndTheCategoryMask() throws {
        let doc = try Self.fixture()
        let labels = doc["labels"] as? [String] ?? []
        XCTAssertEqual(labels.count, 21)
        let entries = (doc["image"] as? [[String: Any]] ?? []).filter { $0["png"] != nil && $0["rotation"] as? Int == 0 }
        let files = entries.compactMap { $0["file"] as? String }.filter { !$0.hasPrefix("google/") }.prefix(2)
        XCTAssertEqual(files.count, 2)
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let r = try CLI.run(["segment", "--model", Self.model, "--masks", dir, "--category-mask", "--json"]
                            + files.map { CLI.images + "/" + $0 })
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try CLI.jsonLines(r.stdout)
        for (file, line) in zip(files, lines) {
            let stem = (file as NSString).deletingPathExtension
            let e = try XCTUnwrap(entries.first { $0["file"] as? String == file })
            // The category mask: MediaPipe's bytes.
            XCTAssertEqual(try ImageFile.read(dir + "/\(stem)_category.png").pixels,
                           try ImageFile.read(CLI.root + "/Tests/Fixtures/deeplab/\(e["png"] as? String ?? "")"
                                              + "_category.png").pixels, file)
            // A mask per class, spaces in labels as _.
            for label in labels {
                let name = label.replacingOccurrences(of: " ", with: "_")
                XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/\(stem)_\(name).png"), "\(stem)_\(name)")
            }
            // Each class's share of the pixels, as MediaPipe's category mask counts them.
            let result = line["result"] as? [String: Any]
            let shares = result?["classes"] as? [String: NSNumber] ?? [:]
            let counts = e["catCounts"] as? [Int] ?? []
            let pixels = Float((e["width"] as? Int ?? 0) * (e["height"] as? Int ?? 0))
            XCTAssertEqual(shares.count, 21)
            for (i, label) in labels.enumerated() {
                XCTAssertEqual(shares[label]?.floatValue ?? -1, Float(counts[i]) / pixels, accuracy: 1e-6, label)
            }
            // The confidences sum to 1 at each pixel (softmax), so the class masks' levels sum to about 255.
            let masks = try labels.map { try ImageFile.read(dir + "/\(stem)_\($0.replacingOccurrences(of: " ", with: "_")).png").pixels }
            for p in stride(from: 0, to: masks[0].count, by: 997) {
                let sum = masks.reduce(0) { $0 + Int($1[p]) }
                XCTAssertLessThanOrEqual(abs(sum - 255), 11, "\(file) pixel \(p)")
            }
        }
    }

    /// A model given by its installed name is the same model (found as the library finds it).
    func testModelByName() throws {
        let r = try CLI.run(["segment", "--model", "deeplab_v3.tflite", CLI.images + "/pose_standing_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("pose_standing_1.png: background 79.5%, person 20.5%\n"), r.stdout)
    }

    func testKeepChoosesWhatStaysInFront() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let photo = CLI.images + "/pose_standing_1.png"
        let person = try CLI.run(["segment", "--model", Self.model, photo, "--background", "#00ff00", "--overlay",
                                  dir + "/person"])
        XCTAssertEqual(person.status, 0, person.stderr)
        let nothing = try CLI.run(["segment", "--model", Self.model, photo, "--background", "#00ff00", "--keep", "cat",
                                   "--overlay", dir + "/cat"])
        XCTAssertEqual(nothing.status, 0, nothing.stderr)
        let kept = try ImageFile.read(dir + "/person/pose_standing_1.png")
        let replaced = try ImageFile.read(dir + "/cat/pose_standing_1.png")
        func green(_ image: DecodedImage) -> Int {
            stride(from: 0, to: image.pixels.count, by: 3).filter {
                image.pixels[$0] == 0 && image.pixels[$0 + 1] == 255 && image.pixels[$0 + 2] == 0
            }.count
        }
        let total = kept.width * kept.height
        // The person (a fifth of the photo) stays; with no cat in it, almost everything is green.
        XCTAssertLessThan(Double(green(kept)), 0.85 * Double(total))
        XCTAssertGreaterThan(Double(green(replaced)), 0.97 * Double(total))
        let bad = try CLI.run(["segment", "--model", Self.model, photo, "--background", "blur", "--keep", "persons",
                               "--overlay", dir + "/x"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("--keep: 'persons' is not a class of deeplab_v3.tflite; classes such as "
                                          + "'person'"), bad.stderr)
        XCTAssertEqual(bad.stdout, "")
    }
}
