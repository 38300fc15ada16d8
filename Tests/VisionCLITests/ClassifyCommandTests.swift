import Foundation
import TestFixtureSupport
import XCTest

/// `vision classify`: the categories MediaPipe gives (Tests/Fixtures/classification, tools/reference_classification.py),
/// every one by default, the options, and the mistakes refused before any image.
final class ClassifyCommandTests: XCTestCase {
    func testEveryCategoryInMediaPipesOrder() throws {
        for model in ["efficientnet_lite0.tflite", "efficientnet_lite0_float32.tflite"] {
            let photo = "negative_animals_1.png"
            let r = try CLI.run(["classify", "--model", CLI.models + "/" + model, "--json", CLI.images + "/" + photo])
            XCTAssertEqual(r.status, 0, r.stderr)
            let line = try XCTUnwrap(try CLI.jsonLines(r.stdout).first)
            let result = line["result"] as? [String: Any]
            let heads = result?["classifications"] as? [[String: Any]] ?? []
            XCTAssertEqual(heads.count, 1)
            XCTAssertEqual(heads.first?["headIndex"] as? Int, 0)
            XCTAssertEqual(heads.first?["headName"] as? String, "probability")
            let categories = heads.first?["categories"] as? [[String: Any]] ?? []
            let (order, scores) = try ClassificationFixtures.load().scores(model: model, file: photo)
            XCTAssertEqual(categories.count, 1000, model)
            XCTAssertEqual(categories.compactMap { $0["index"] as? Int }, order, model)
            for c in categories {
                let i = c["index"] as? Int ?? -1, score = (c["score"] as? NSNumber)?.floatValue ?? -1
                XCTAssertEqual(score, scores[i], model)
            }
            XCTAssertEqual(categories.first?["categoryName"] as? String, model.contains("float") ? "Pembroke" : "kit fox")
        }
    }

    func testSummaryShowsTheTopThree() throws {
        let r = try CLI.run(["classify", CLI.shared + "/testdata/google/burger.jpg", CLI.images + "/negative_animals_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasSuffix("burger.jpg: cheeseburger 0.95, mushroom 0.01, bagel 0.00"), lines[0])
        // Equal scores in MediaPipe's order: kit fox before grey fox.
        XCTAssertTrue(lines[1].hasSuffix("negative_animals_1.png: kit fox 0.10, grey fox 0.10, cougar 0.08"), lines[1])
    }

    func testOptions() throws {
        let burger = CLI.shared + "/testdata/google/burger.jpg"
        func categories(_ args: [String]) throws -> [String] {
            let r = try CLI.run(["classify", "--model", CLI.models + "/efficientnet_lite0_float32.tflite", "--json"]
                                + args + [burger])
            XCTAssertEqual(r.status, 0, r.stderr)
            let result = try XCTUnwrap(try CLI.jsonLines(r.stdout).first)["result"] as? [String: Any]
            let heads = result?["classifications"] as? [[String: Any]] ?? []
            return (heads.first?["categories"] as? [[String: Any]] ?? []).compactMap { $0["categoryName"] as? String }
        }
        XCTAssertEqual(try categories(["--max-results", "2"]), ["cheeseburger", "bagel"])
        XCTAssertEqual(try categories(["--allow", "guacamole,meat loaf,cheeseburger"]),
                       ["cheeseburger", "guacamole", "meat loaf"])
        XCTAssertEqual(try categories(["--deny", "cheeseburger", "--max-results", "1"]), ["bagel"])
        XCTAssertEqual(try categories(["--score-threshold", "0.5"]), ["cheeseburger"])
    }

    func testMistakesAreRefusedBeforeAnyImage() throws {
        let photo = CLI.images + "/negative_animals_1.png"
        for (args, message) in [
            (["--allow", "cheesburger"], "--allow: 'cheesburger' is not a label of efficientnet_lite0.tflite; labels "
                + "such as 'cheeseburger'"),
            (["--deny", "dogg"], "--deny: 'dogg' is not a label"),
            (["--allow", "cheeseburger", "--deny", "bagel"], "--allow and --deny cannot be given together"),
            (["--max-results", "0"], "--max-results takes -1"),
            (["--model", CLI.models + "/deeplab_v3.tflite"],
             "classify needs an image classification .tflite; deeplab_v3.tflite is an image segmentation .tflite"),
            (["--model", CLI.models + "/efficientdet_lite0.tflite"], "is an object detector"),
        ] {
            let r = try CLI.run(["classify"] + args + [photo])
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
        }
    }
}
