import Foundation
import TasksVision
import TasksVisionImageIO
import XCTest

/// The gesture classifier filters against MediaPipe 1.2.3 on our photos
/// (tools/compare_gesture_filters.py, Tests/Fixtures/hands/gesture_filters.json): deny lists, allow
/// lists, both together (the allow list wins), unknown names, thresholds no score reaches, and the
/// custom classifier filtered with and without the canned one. For every case and photo: the same
/// hands (count, order, handedness, wrist within 0.02), and the same gesture lists as MediaPipe
/// returns them (a hand whose gesture is filtered out has no entry; none left, an empty result),
/// with the same names and scores within 0.02.
final class GestureFilterParityTests: XCTestCase {
    struct Fixture: Decodable {
        struct Filter: Decodable { let allow: [String]?; let deny: [String]?; let threshold: Float? }
        struct Category: Decodable { let index: Int; let score: Float; let categoryName: String? }
        struct Entry: Decodable {
            let file: String; let wrists: [[Float]]; let worldLandmarkCounts: [Int]; let handedness: [String]
            let gestures: [[Category]]
        }
        struct Case: Decodable {
            let name: String; let model: String; let numHands: Int; let canned: Filter?; let custom: Filter?
            let results: [Entry]
        }
        let mediapipe: String
        let cases: [Case]
    }

    static func classifier(_ f: Fixture.Filter?) -> ClassifierOptions? {
        guard let f else { return nil }
        let o = ClassifierOptions()
        o.categoryAllowlist = f.allow
        o.categoryDenylist = f.deny
        if let t = f.threshold { o.scoreThreshold = t }
        return o
    }

    func testFiltersMatchMediaPipe() throws {
        let url = URL(fileURLWithPath: Port.fixtures + "/hands/gesture_filters.json")
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        XCTAssertEqual(fixture.mediapipe, "1.2.3")
        var images: [String: MPImage] = [:]
        var compared = 0, emptyResults = 0, partialResults = 0, worstScore: Float = 0, worstWrist: Float = 0
        for c in fixture.cases {
            let o = GestureRecognizerOptions()
            o.baseOptions.modelAssetPath = try Port.model(c.model)
            o.numHands = c.numHands
            o.cannedGesturesClassifierOptions = Self.classifier(c.canned)
            o.customGesturesClassifierOptions = Self.classifier(c.custom)
            let recognizer = try GestureRecognizer(options: o)
            for e in c.results {
                if images[e.file] == nil { images[e.file] = try Port.image(e.file) }
                guard let image = images[e.file] else { continue }
                let r = try recognizer.recognize(image: image)
                let what = "\(c.name) on \(e.file)"
                compared += 1
                if e.wrists.isEmpty { emptyResults += 1 }
                if !e.wrists.isEmpty && e.gestures.count < e.wrists.count { partialResults += 1 }
                XCTAssertEqual(r.landmarks.count, e.wrists.count, "\(what): hands")
                XCTAssertEqual(r.worldLandmarks.map(\.count), e.worldLandmarkCounts, "\(what): world landmarks")
                XCTAssertEqual(r.handedness.map { $0.first?.categoryName ?? "" }, e.handedness, "\(what): handedness")
                for (hand, wrist) in zip(r.landmarks, e.wrists) {
                    let d = max(abs(hand[0].x - wrist[0]), abs(hand[0].y - wrist[1]))
                    worstWrist = max(worstWrist, d)
                    XCTAssertLessThanOrEqual(d, 0.02, "\(what): wrist")
                }
                XCTAssertEqual(r.gestures.count, e.gestures.count, "\(what): gesture lists")
                XCTAssertEqual(r.gestures.map { $0.map { $0.categoryName ?? "" } },
                               e.gestures.map { $0.map { $0.categoryName ?? "" } }, "\(what): gestures")
                for (ours, theirs) in zip(r.gestures.joined(), e.gestures.joined()) {
                    XCTAssertEqual(ours.index, theirs.index, "\(what): gesture index")
                    worstScore = max(worstScore, abs(ours.score - theirs.score))
                    XCTAssertEqual(ours.score, theirs.score, accuracy: 0.02, "\(what): gesture score")
                }
            }
        }
        XCTAssertGreaterThan(emptyResults, 0, "the fixture has emptied results")
        XCTAssertGreaterThan(partialResults, 0, "the fixture has hands without a gesture beside hands with one")
        print(String(format: "gesture filters: %d recognitions in %d cases (%d empty results, %d with fewer gestures "
                             + "than hands); worst wrist difference %.2g, worst gesture score difference %.2g",
                     compared, fixture.cases.count, emptyResults, partialResults, worstWrist, worstScore))
    }

    /// `ClassifierOptions` accepts both lists (MediaPipe's gesture recognizer does; its other
    /// classifiers refuse them, but this is the only task here with classifier options).
    func testBothListsAreAccepted() throws {
        let o = GestureRecognizerOptions()
        o.baseOptions.modelAssetPath = try Port.model("gesture_recognizer.task")
        o.cannedGesturesClassifierOptions = ClassifierOptions(categoryAllowlist: ["Victory"],
                                                              categoryDenylist: ["None"])
        XCTAssertNoThrow(try GestureRecognizer(options: o))
    }
}
