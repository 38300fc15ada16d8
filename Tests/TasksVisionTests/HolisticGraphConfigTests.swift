import Foundation
@testable import TasksVision
import XCTest

/// Port of the `VerifyGraph` cases of Google's holistic tests (holistic_pose_tracking_test.cc,
/// holistic_hand_tracking_test.cc) and of the hand ROI refinement graph's: MediaPipe compares the graph it
/// builds with a generated config (../shared/testdata/google/expected/holistic_pose_tracking_graph.pbtxt,
/// holistic_hand_tracking_left_hand_graph.pbtxt, hand_roi_refinement_generated_graph.pbtxt); here every option
/// value those configs set is compared with the constant our graph runs with. (Their smoke tests' photo,
/// male_full_height_hands.jpg, is not here; HolisticLandmarkerParityTests compares the whole graph's results
/// with MediaPipe's.)
final class HolisticGraphConfigTests: XCTestCase {
    /// One node of a text-format graph config: its calculator and its option fields in order, each named by
    /// its plain enclosing blocks ("one_euro_filter.min_cutoff", "ranges.begin").
    struct Node {
        let calculator: String
        var fields: [(key: String, value: String)] = []

        func values(_ key: String) -> [String] { fields.filter { $0.key == key }.map(\.value) }
        func float(_ key: String) -> Float? { values(key).first.flatMap { Float($0) } }
        func int(_ key: String) -> Int? { values(key).first.flatMap { Int($0) } }
    }

    static func nodes(_ file: String) throws -> [Node] {
        let text = try String(contentsOfFile: Paths.shared + "/testdata/google/expected/" + file, encoding: .utf8)
        var nodes: [Node] = [], current: Node?, blocks: [String] = []
        for raw in text.components(separatedBy: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("{") {
                let name = line.dropLast().trimmingCharacters(in: .whitespaces)
                if blocks.isEmpty && name == "node" { current = Node(calculator: "") }
                blocks.append(name)
            } else if line == "}" {
                blocks.removeLast()
                if blocks.isEmpty, let node = current { nodes.append(node); current = nil }
            } else if let colon = line.firstIndex(of: ":"), current != nil {
                let key = String(line[..<colon]), value = line[line.index(after: colon)...]
                    .trimmingCharacters(in: CharacterSet(charactersIn: " \""))
                if blocks.count == 1 {
                    if key == "calculator" { current = Node(calculator: value, fields: current?.fields ?? []) }
                    continue
                }
                // Wrappers ([...ext], options, node_options) and the base options are not option values.
                guard !blocks.contains("base_options") else { continue }
                let path = blocks.dropFirst().filter { !$0.hasPrefix("[") && $0 != "options" && $0 != "node_options" }
                current?.fields.append(((path + [key]).joined(separator: "."), value))
            }
        }
        return nodes
    }

    static func only(_ nodes: [Node], _ calculator: String) -> [Node] { nodes.filter { $0.calculator == calculator } }

    func assertTransformation(_ node: Node, _ t: RectTransformation, file: StaticString = #filePath,
                              line: UInt = #line) {
        XCTAssertEqual(node.float("scale_x"), t.scaleX, file: file, line: line)
        XCTAssertEqual(node.float("scale_y"), t.scaleY, file: file, line: line)
        XCTAssertEqual(node.float("shift_x") ?? 0, t.shiftX, file: file, line: line)
        XCTAssertEqual(node.float("shift_y") ?? 0, t.shiftY, file: file, line: line)
        XCTAssertEqual(node.values("square_long").first == "true", t.squareLong, file: file, line: line)
    }

    func assertAlignment(_ node: Node, start: Int, end: Int, angle: Float, file: StaticString = #filePath,
                         line: UInt = #line) {
        XCTAssertEqual(node.int("rotation_vector_start_keypoint_index"), start, file: file, line: line)
        XCTAssertEqual(node.int("rotation_vector_end_keypoint_index"), end, file: file, line: line)
        // DetectionsToRectsCalculator: M_PI * degrees / 180.f in double, kept in a float.
        let degrees = try? XCTUnwrap(node.float("rotation_vector_target_angle_degrees"), file: file, line: line)
        XCTAssertEqual(degrees.map { Float(Double.pi * Double($0) / 180) }, angle, file: file, line: line)
    }

    func assertSmoothing(_ node: Node, _ s: LandmarksSmoothing, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(node.float("one_euro_filter.min_cutoff").map(Double.init), s.minCutoff, file: file, line: line)
        XCTAssertEqual(node.float("one_euro_filter.beta").map(Double.init), s.beta, file: file, line: line)
        XCTAssertEqual(node.float("one_euro_filter.derivate_cutoff").map(Double.init), s.derivateCutoff, file: file,
                       line: line)
        XCTAssertEqual(node.values("one_euro_filter.disable_value_scaling").first == "true", s.disableValueScaling,
                       file: file, line: line)
    }

    func testPoseTrackingGraph() throws {
        let nodes = try Self.nodes("holistic_pose_tracking_graph.pbtxt")
        let tracking = HolisticPoseTracking(
            detector: DetectorStage(resources: try ModelResources(path: try Paths.model("pose_detector.tflite"),
                                                                  threads: 1),
                                    anchors: [], decoding: .pose(minScore: 0.5), range: .init(min: -1, max: 1),
                                    suppressionThreshold: 0.3),
            landmarksStage: try PoseLandmarksStage(try ModelResources(
                path: try Paths.model("pose_landmarks_detector.tflite"), threads: 1)),
            minPresence: 0.5, segmentation: false)
        // The detection's rect and the auxiliary landmarks' rect: scaled by 1.25, squared.
        let transformations = Self.only(nodes, "RectTransformationCalculator")
        XCTAssertEqual(transformations.count, 2)
        for node in transformations { assertTransformation(node, HolisticPoseTracking.roiTransformation) }
        // Three alignment-point rects (detection, raw auxiliary landmarks, smoothed ones): 0 to 1 at 90 degrees.
        let alignments = Self.only(nodes, "AlignmentPointsRectsCalculator")
        XCTAssertEqual(alignments.count, 3)
        for node in alignments { assertAlignment(node, start: 0, end: 1, angle: AlignmentPointsRects.poseTargetAngle) }
        // Auxiliary landmarks, landmarks, world landmarks, in that order.
        let smoothing = Self.only(nodes, "LandmarksSmoothingCalculator")
        XCTAssertEqual(smoothing.count, 3)
        for (node, s) in zip(smoothing, [tracking.auxiliarySmoothing, tracking.landmarkSmoothing,
                                         tracking.worldSmoothing]) {
            assertSmoothing(node, s)
        }
        let visibility = Self.only(nodes, "VisibilitySmoothingCalculator")
        XCTAssertEqual(visibility.map { $0.float("low_pass_filter.alpha") },
                       [tracking.visibilitySmoothing.alpha, tracking.worldVisibilitySmoothing.alpha])
        XCTAssertEqual(Self.only(nodes, "SplitLandmarkListCalculator").first?.values("ranges.end"), ["33"])
        // The pose detector runs only without a previous region (the loopback's presence gates its image).
        let gate = try XCTUnwrap(Self.only(nodes, "GateCalculator").first)
        XCTAssertEqual(gate.values("empty_packets_as_allow"), ["true"])
        XCTAssertEqual(Self.only(nodes, "PreviousLoopbackCalculator").count, 1)
    }

    func testHandTrackingGraph() throws {
        let nodes = try Self.nodes("holistic_hand_tracking_left_hand_graph.pbtxt")
        let splits = Self.only(nodes, "SplitNormalizedLandmarkListCalculator")
        XCTAssertEqual(splits.count, 2)
        let side = HolisticHandTracking.Side.left
        XCTAssertEqual(splits.first?.values("ranges.begin").compactMap { Int($0) },
                       [side.wrist, side.pinky, side.index])
        XCTAssertEqual(splits.last?.values("ranges.begin"), ["0"], "the wrist's visibility")
        XCTAssertEqual(Self.only(nodes, "ThresholdingCalculator").first?.values("threshold").first.flatMap(Double.init),
                       HolisticHandTracking.minWristVisibility)
        let transformations = Self.only(nodes, "RectTransformationCalculator")
        XCTAssertEqual(transformations.count, 2)
        assertTransformation(transformations[0], HolisticHandTracking.roiFromPose)
        assertTransformation(transformations[1], RectTransformation.handNextFrame)
        let tracking = try XCTUnwrap(Self.only(nodes, "RoiTrackingCalculator").first)
        XCTAssertEqual(tracking.float("rect_requirements.rotation_degrees"), RoiTracking.holisticHand.rotationDegrees)
        XCTAssertEqual(tracking.float("rect_requirements.translation"), RoiTracking.holisticHand.translation)
        XCTAssertEqual(tracking.float("rect_requirements.scale"), RoiTracking.holisticHand.scale)
        XCTAssertEqual(tracking.float("landmarks_requirements.recrop_rect_margin"),
                       RoiTracking.holisticHand.recropRectMargin)
        let align = try XCTUnwrap(Self.only(nodes, "AlignHandToPoseInWorldCalculator").first)
        XCTAssertEqual(align.int("hand_wrist_idx"), 0)
        XCTAssertEqual(align.int("pose_wrist_idx"), side.wrist)
        XCTAssertEqual(HolisticHandTracking.Side.right, .init(wrist: 16, pinky: 18, index: 20), "the right side's")
    }

    func testHandRoiRefinementGraph() throws {
        let nodes = try Self.nodes("hand_roi_refinement_generated_graph.pbtxt")
        let bundle = try ModelSource(path: try Paths.model("holistic_landmarker_assembled.task"))
        let stage = try HandRoiRefinementStage(try ModelResources(model: try bundle.model("hand_roi_refinement.tflite"),
                                                                  threads: 1))
        let toTensor = try XCTUnwrap(Self.only(nodes, "ImageToTensorCalculator").first)
        XCTAssertEqual(toTensor.int("output_tensor_width"), stage.model.inputWidth)
        XCTAssertEqual(toTensor.int("output_tensor_height"), stage.model.inputHeight)
        XCTAssertEqual(toTensor.values("keep_aspect_ratio"), ["true"])
        XCTAssertEqual(toTensor.float("output_tensor_float_range.min"), stage.range.min)
        XCTAssertEqual(toTensor.float("output_tensor_float_range.max"), stage.range.max)
        XCTAssertEqual(toTensor.values("border_mode"), ["BORDER_REPLICATE"])
        XCTAssertEqual(HandRoiRefinementStage.border, .replicate)
        let toLandmarks = try XCTUnwrap(Self.only(nodes, "TensorsToLandmarksCalculator").first)
        XCTAssertEqual(toLandmarks.int("num_landmarks"), HandRoiRefinementStage.landmarkCount)
        XCTAssertEqual(toLandmarks.int("input_image_width"), stage.model.inputWidth)
        XCTAssertEqual(toLandmarks.float("normalize_z"), 1)
        assertAlignment(try XCTUnwrap(Self.only(nodes, "AlignmentPointsRectsCalculator").first), start: 0, end: 1,
                        angle: HandRoiRefinementStage.targetAngle)
        assertTransformation(try XCTUnwrap(Self.only(nodes, "RectTransformationCalculator").first),
                             HandRoiRefinementStage.transformation)
    }
}
