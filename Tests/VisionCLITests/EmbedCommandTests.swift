import Foundation
import TestFixtureSupport
import XCTest

/// `vision embed`: MediaPipe's embeddings (Tests/Fixtures/classification), and `--similar` ranking a folder with its
/// cache of embeddings.
final class EmbedCommandTests: XCTestCase {
    /// MediaPipe's float embedding of burger.jpg (efficientnet_lite0_float32, no options).
    static func reference(l2: Bool, quantize: Bool) throws -> [Double] {
        let e = try XCTUnwrap(try ClassificationFixtures.load().embed.first {
            $0.file == "google/burger.jpg" && $0.l2 == l2 && $0.quantize == quantize
                && $0.model == "efficientnet_lite0_float32.tflite" && $0.roi == nil
        })
        if quantize { return Base64Array.int8(e.quantized ?? "").map(Double.init) }
        return Base64Array.float32(e.float ?? "").map(Double.init)
    }

    func testEmbeddingsAreMediaPipes() throws {
        for (l2, quantize) in [(false, false), (true, false), (true, true)] {
            let args = ["embed", "--json", CLI.shared + "/testdata/google/burger.jpg"]
                + (l2 ? ["--l2-normalize"] : []) + (quantize ? ["--quantize"] : [])
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 0, r.stderr)
            let result = try XCTUnwrap(try CLI.jsonLines(r.stdout).first)["result"] as? [String: Any]
            let heads = result?["embeddings"] as? [[String: Any]] ?? []
            XCTAssertEqual(heads.count, 1)
            XCTAssertEqual(heads.first?["headIndex"] as? Int, 0)
            XCTAssertEqual(heads.first?["headName"] as? String, "probability")
            let key = quantize ? "quantizedEmbedding" : "floatEmbedding"
            XCTAssertNil(heads.first?[quantize ? "floatEmbedding" : "quantizedEmbedding"])
            let values = (heads.first?[key] as? [NSNumber] ?? []).map { $0.floatValue }
            let reference = try Self.reference(l2: l2, quantize: quantize)
            XCTAssertEqual(values.count, 1000)
            // JSON carries floats exactly (shortest round-trip form).
            XCTAssertEqual(values, reference.map { Float($0) }, "l2 \(l2) quantize \(quantize)")
        }
    }

    /// The burger's crop ranks first among the photos; the second run reads every embedding from the cache and
    /// prints the same lines.
    func testSimilarRanksAFolderAndCachesItsEmbeddings() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let photos = dir + "/photos", cache = dir + "/cache"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for name in ["burger_crop.jpg"] {
            try FileManager.default.copyItem(atPath: CLI.shared + "/testdata/google/" + name, toPath: photos + "/" + name)
        }
        for name in ["negative_animals_1.png", "negative_coffee_1.png", "pose_yoga_2.png", "hands_two_1.png"] {
            try FileManager.default.copyItem(atPath: CLI.images + "/" + name, toPath: photos + "/" + name)
        }
        let query = CLI.shared + "/testdata/google/burger.jpg"
        let env = ["XDG_CACHE_HOME": cache]
        let first = try CLI.run(["embed", "--similar", query, photos], environment: env)
        XCTAssertEqual(first.status, 0, first.stderr)
        let lines = first.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines.first?.hasSuffix("burger_crop.jpg") ?? false, first.stdout)
        let values = lines.compactMap { Double($0.split(separator: " ").first ?? "") }
        XCTAssertEqual(values, values.sorted(by: >))
        let cached = try FileManager.default.subpathsOfDirectory(atPath: cache + "/tasksvision/embeddings")
            .filter { !$0.contains("/.") && $0.contains("/") }
        XCTAssertEqual(cached.count, 6, "\(cached)")
        let second = try CLI.run(["embed", "--similar", query, photos], environment: env)
        XCTAssertEqual(second.stdout, first.stdout)
        // A damaged cache file is recomputed, not trusted.
        let damaged = cache + "/tasksvision/embeddings/" + cached[0]
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: damaged))
        XCTAssertEqual(try CLI.run(["embed", "--similar", query, photos], environment: env).stdout, first.stdout)
        // JSON lines name the query and each file.
        let json = try CLI.jsonLines(try CLI.run(["embed", "--similar", query, photos, "--json"], environment: env).stdout)
        XCTAssertEqual(json.count, 5)
        XCTAssertEqual(json.first?["query"] as? String, query)
        XCTAssertNotNil(json.first?["similarity"] as? Double)
    }

    func testMistakes() throws {
        let photo = CLI.images + "/negative_animals_1.png"
        for (args, message) in [
            (["--similar", photo], "--similar QUERY takes one FOLDER"),
            (["--similar", photo, CLI.images, "--video", CLI.images], "--video does not go with --similar"),
            (["--model", CLI.models + "/efficientdet_lite0.tflite", photo], "is an object detector"),
            (["--model", CLI.models + "/deeplab_v3.tflite", photo], "is an image segmenter"),
        ] {
            let r = try CLI.run(["embed"] + args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
    }
}
