import Foundation
@testable import TasksVision
import XCTest

/// The object detector's calculators one by one: the general `TensorsToDetections` decoding, `NonMaxSuppression`
/// (its grid against a plain greedy loop), `DetectionLabelIdToText`, `DetectionsDeduplicate`, the object track
/// IDs and the turn of a stored-pixel box into the displayed image.
final class ObjectDetectionCalculatorTests: XCTestCase {
    // MARK: TensorsToDetections

    func options(classes: Int, boxes: Int) -> TensorsToDetectionsOptions {
        var o = TensorsToDetectionsOptions(numClasses: classes, numBoxes: boxes, numCoords: 4)
        (o.xScale, o.yScale, o.wScale, o.hScale) = (10, 10, 5, 5)
        o.applyExponentialOnBoxSize = true
        return o
    }

    func decode(_ boxes: [Float], _ scores: [Float], anchors: [Anchor], _ o: TensorsToDetectionsOptions)
        -> [RawDetection] {
        boxes.withUnsafeBufferPointer { b in
            scores.withUnsafeBufferPointer { s in TensorsToDetections.decode(boxes: b, scores: s, anchors: anchors,
                                                                             options: o) }
        }
    }

    /// YXHW: y and x offsets scaled by the anchor's size, sizes exp(value / scale) times the anchor's.
    func testYXHWDecodingWithExponentialSizes() {
        let anchor = Anchor(xCenter: 0.5, yCenter: 0.25, width: 0.2, height: 0.4)
        // y offset 1 / 10 * 0.4 = 0.04, x offset 2 / 10 * 0.2 = 0.04, h = e^0 * 0.4, w = e^(5 ln 2 / 5) * 0.2 = 0.4.
        let raw: [Float] = [1, 2, 0, 5 * Float(M_LN2)]
        let d = decode(raw, [0.1, 0.7], anchors: [anchor], options(classes: 2, boxes: 1))
        XCTAssertEqual(d.count, 1)
        XCTAssertEqual(d[0].classId, 1)
        XCTAssertEqual(d[0].score, 0.7)
        XCTAssertEqual(d[0].box.xmin, 0.54 - 0.2, accuracy: 1e-6)
        XCTAssertEqual(d[0].box.ymin, 0.29 - 0.2, accuracy: 1e-6)
        XCTAssertEqual(d[0].box.width, 0.4, accuracy: 1e-6)
        XCTAssertEqual(d[0].box.height, 0.4, accuracy: 1e-6)
        // Without the exponential, sizes are linear: h = 0 / 5 * 0.4.
        var linear = options(classes: 2, boxes: 1)
        linear.applyExponentialOnBoxSize = false
        XCTAssertEqual(decode(raw, [0.1, 0.7], anchors: [anchor], linear)[0].box.height, 0)
    }

    /// The first of equal best scores wins; the allowlist and denylist restrict the classes looked at; a
    /// score under the threshold and a box of negative size are dropped.
    func testClassChoiceFiltersAndThreshold() {
        let anchors = [Anchor](repeating: Anchor(xCenter: 0.5, yCenter: 0.5, width: 0.1, height: 0.1), count: 3)
        let raw: [Float] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -200, 0]  // box 2: e^(-40) tall, not negative
        let scores: [Float] = [0.3, 0.6, 0.6, 0.9, 0.1, 0.2, 0.05, 0.04, 0.02]
        var o = options(classes: 3, boxes: 3)
        XCTAssertEqual(decode(raw, scores, anchors: anchors, o).map(\.classId), [1, 0, 0])
        o.minScoreThreshold = 0.5
        XCTAssertEqual(decode(raw, scores, anchors: anchors, o).map(\.score), [0.6, 0.9])
        o.minScoreThreshold = nil
        o.classIndices = [2]
        o.classIndicesAreAllowlist = true
        XCTAssertEqual(decode(raw, scores, anchors: anchors, o).map(\.score), [0.6, 0.2, 0.02])
        o.classIndicesAreAllowlist = false
        XCTAssertEqual(decode(raw, scores, anchors: anchors, o).map(\.classId), [1, 0, 0])
        // A denylist of every class leaves class -1 at -FLT_MAX, dropped by any threshold.
        o.classIndices = [0, 1, 2]
        o.minScoreThreshold = -1
        XCTAssertEqual(decode(raw, scores, anchors: anchors, o).count, 0)
        // Negative heights (linear sizes, negative h) are dropped.
        var linear = options(classes: 3, boxes: 3)
        linear.applyExponentialOnBoxSize = false
        XCTAssertEqual(decode([0, 0, -1, 1, 0, 0, 1, 1, 0, 0, 1, 1], scores, anchors: anchors, linear).count, 2)
    }

    /// Sigmoid scores, with logits clipped first when a clipping threshold is set.
    func testSigmoidScoresAndClipping() {
        let anchors = [Anchor(xCenter: 0.5, yCenter: 0.5, width: 0.1, height: 0.1)]
        var o = options(classes: 2, boxes: 1)
        o.sigmoidScore = true
        let d = decode([0, 0, 0, 0], [0, 2], anchors: anchors, o)
        XCTAssertEqual(d[0].classId, 1)
        XCTAssertEqual(d[0].score, 1 / (1 + FloatMath.exp(-2)))
        o.scoreClippingThreshold = 1
        XCTAssertEqual(decode([0, 0, 0, 0], [0, 2], anchors: anchors, o)[0].score, 1 / (1 + FloatMath.exp(-1)))
    }

    // MARK: NonMaxSuppression

    func box(_ x: Float, _ y: Float, _ w: Float, _ h: Float) -> RelativeBox {
        RelativeBox(xmin: x, ymin: y, width: w, height: h)
    }

    func testSimilarity() {
        let a = box(0, 0, 0.5, 0.5)
        XCTAssertEqual(NonMaxSuppression.similarity(.intersectionOverUnion, a, a), 1)
        // Half of a overlaps b, of the same size: 0.125 / (0.25 + 0.25 - 0.125).
        let b = box(0.25, 0, 0.5, 0.5)
        XCTAssertEqual(NonMaxSuppression.similarity(.intersectionOverUnion, a, b), 1.0 / 3, accuracy: 1e-7)
        XCTAssertEqual(NonMaxSuppression.similarity(.modifiedJaccard, a, box(0.25, 0, 1, 0.5)), 0.25)
        XCTAssertEqual(NonMaxSuppression.similarity(.jaccard, a, b), 0.125 / (0.75 * 0.5))
        // Touching edges intersect, with no area; apart, nothing.
        XCTAssertEqual(NonMaxSuppression.similarity(.intersectionOverUnion, a, box(0.5, 0, 0.5, 0.5)), 0)
        XCTAssertEqual(NonMaxSuppression.similarity(.intersectionOverUnion, a, box(0.6, 0.6, 0.1, 0.1)), 0)
        // Empty boxes (zero size) suppress nothing.
        XCTAssertEqual(NonMaxSuppression.similarity(.intersectionOverUnion, box(0.1, 0.1, 0, 0), a), 0)
    }

    /// The greedy walk MediaPipe's calculator makes, every kept box tested, in libc++'s order.
    func naiveSuppress(_ d: [RawDetection], threshold: Float, max: Int) -> [RawDetection] {
        var order = d.enumerated().map { (index: $0.offset, score: $0.element.score) }
        LibcxxSort.sort(&order) { $0.score > $1.score }
        var kept: [RawDetection] = []
        for (i, _) in order {
            if !kept.contains(where: { NonMaxSuppression.similarity(.intersectionOverUnion, $0.box, d[i].box)
                > threshold }) {
                kept.append(d[i])
            }
            if max > 0 && kept.count >= max { break }
        }
        return kept
    }

    /// The grid gives what testing every kept box gives: boxes of every size, inside and beyond [0, 1],
    /// scores of few levels (many ties), thresholds 0 to 0.9, with and without a cap.
    func testGridSuppressionEqualsTheGreedyLoop() {
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<40 {
            let n = trial % 2 == 0 ? 3000 : 200
            let detections = (0..<n).map { i -> RawDetection in
                let w = Float.random(in: 0...(i % 5 == 0 ? 1.5 : 0.2), using: &rng)
                let h = Float.random(in: 0...(i % 7 == 0 ? 1.5 : 0.2), using: &rng)
                let x = Float.random(in: -0.3...1.1, using: &rng), y = Float.random(in: -0.3...1.1, using: &rng)
                let score = Float(Int.random(in: 0..<16, using: &rng)) / 16
                return RawDetection(score: score, classId: i % 3, box: box(x, y, w, h), keypoints: [])
            }
            let threshold = Float(trial % 10) / 10
            let cap = trial % 3 == 0 ? 25 : -1
            let fast = NonMaxSuppression.suppress(detections, threshold: threshold, maxDetections: cap)
            XCTAssertEqual(fast, naiveSuppress(detections, threshold: threshold, max: cap), "trial \(trial)")
        }
    }

    // MARK: Labels, deduplication

    func testLabelIdToText() {
        let d = RawDetection(score: 0.5, classId: 1, box: box(0, 0, 1, 1), keypoints: [])
        let names = LabelMap(names: ["a", "b"], displayNames: nil)
        XCTAssertEqual(DetectionLabelIdToText.labels(d, map: names),
                       DetectionLabels(scores: [0.5], labelIds: [], labels: ["b"], displayNames: []))
        let both = LabelMap(names: ["a", "b"], displayNames: ["A", "B"])
        XCTAssertEqual(DetectionLabelIdToText.labels(d, map: both).categories,
                       [ResultCategory(index: -1, score: 0.5, categoryName: "b", displayName: "B")])
        // An id the map lacks keeps its id; no map, the same.
        var unknown = d
        unknown.classId = 7
        XCTAssertEqual(DetectionLabelIdToText.labels(unknown, map: names).categories,
                       [ResultCategory(index: 7, score: 0.5)])
        XCTAssertEqual(DetectionLabelIdToText.labels(d, map: nil).categories, [ResultCategory(index: 1, score: 0.5)])
    }

    func testDeduplicateMergesEqualPixelBoxes() {
        let a = PixelBox(x: 1, y: 2, width: 3, height: 4), b = PixelBox(x: 1, y: 2, width: 3, height: 5)
        let l = { (s: Float, n: String) in DetectionLabels(scores: [s], labelIds: [], labels: [n]) }
        let out = DetectionsDeduplicate.deduplicate([(l(0.9, "x"), a), (l(0.8, "y"), b), (l(0.7, "z"), a)])
        XCTAssertEqual(out.map(\.box), [a, b])
        XCTAssertEqual(out[0].labels.categories.map(\.categoryName), ["x", "z"])
        XCTAssertEqual(out[0].labels.categories.map(\.score), [0.9, 0.7])
    }

    // MARK: Track IDs

    func testObjectTrackIds() {
        var counter = TrackIdCounter()
        var tracks: [ObjectTrack] = []
        func frame(_ n: Int, _ d: [(box: RelativeBox, category: String?)]) -> [Int] {
            let r = TrackIdAssociation.objects(d, tracks: tracks, frame: n, minSimilarity: 0.3, memory: 2,
                                               counter: &counter)
            tracks = r.tracks
            return r.ids
        }
        XCTAssertEqual(frame(0, [(box(0.1, 0.1, 0.2, 0.2), "cat"), (box(0.6, 0.6, 0.2, 0.2), "dog")]), [1, 2])
        // Moved a little: the same tracks; a cat where the dog was is another object.
        XCTAssertEqual(frame(1, [(box(0.12, 0.1, 0.2, 0.2), "cat"), (box(0.6, 0.6, 0.2, 0.2), "cat")]), [1, 3])
        // Two cats on track 1: the first (best) takes it.
        XCTAssertEqual(frame(2, [(box(0.12, 0.11, 0.2, 0.2), "cat"), (box(0.13, 0.1, 0.2, 0.2), "cat")]), [1, 4])
        // The dog, unseen for two frames, is still remembered; after that, a new track.
        XCTAssertEqual(frame(3, [(box(0.6, 0.6, 0.2, 0.2), "dog")]), [2])
        XCTAssertEqual(frame(6, [(box(0.12, 0.11, 0.2, 0.2), "cat")]), [5])
    }

    // MARK: Display boxes

    /// A stored-pixel box turned into the displayed image, for every orientation: the displayed box covers
    /// exactly the turned pixels (checked pixel by pixel on a small image).
    func testDisplayBoxForEveryOrientation() throws {
        let (w, h) = (7, 5)
        let stored = PixelBox(x: 1, y: 2, width: 4, height: 2)
        for o in ImageOrientation.allCases {
            let image = try MPImage(pixels: [UInt8](repeating: 0, count: w * h * 3), width: w, height: h,
                                    pixelFormat: .rgb8, orientation: o)
            let d = ObjectDetector.displayBox(stored, image: image)
            // Every stored pixel centre inside the box lands inside the displayed box, and the areas agree.
            for y in stored.y..<(stored.y + stored.height) {
                for x in stored.x..<(stored.x + stored.width) {
                    let p = o.displayPoint(fromStored: (x: (Float(x) + 0.5) / Float(w), y: (Float(y) + 0.5) / Float(h)))
                    let c = CGPoint(x: CGFloat(p.x) * CGFloat(image.width), y: CGFloat(p.y) * CGFloat(image.height))
                    XCTAssertTrue(d.contains(c), "\(o): \(c) outside \(d)")
                }
            }
            XCTAssertEqual(d.width * d.height, CGFloat(stored.width * stored.height), "\(o)")
        }
    }
}
