import Foundation
@testable import TasksVisionEngine
import XCTest

/// Interpreters sharing one `SharedArena`, run in turn, give the bits of interpreters with arenas of their own:
/// no layer reads activation memory it did not write in the same call.
final class SharedArenaTests: XCTestCase {
    func testInterpretersRunInTurnOnOneArenaGiveTheirOwnResults() throws {
        let names = ["pose_detector.tflite", "hand_landmark_full.tflite", "face_detection_short_range.tflite",
                     "pose_landmarks_detector.tflite"]
        let arena = try SharedArena()
        var options = Interpreter.Options()
        options.sharedArena = arena
        let shared = try names.map { try Interpreter(path: try TestPaths.model($0), options: options) }
        let own = try names.map { try Interpreter(path: try TestPaths.model($0)) }
        XCTAssertTrue(shared.allSatisfy { $0.arenaBytes <= arena.capacity })
        // Each model twice, interleaved with the others, on other inputs each time.
        for round in 0..<2 {
            for (i, (a, b)) in zip(shared, own).enumerated() {
                let inputs = a.inputs.enumerated().map { j, input in
                    fixtureRandomFloats(seed: UInt64(100 * round + 10 * i + j), count: input.elementCount, low: 0,
                                        high: 1)
                }
                let ours = try a.run(inputs), theirs = try b.run(inputs)
                XCTAssertEqual(ours, theirs, "\(names[i]), round \(round)")
            }
        }
    }

    func testAnArenaTooSmallForAModelGivesItsOwn() throws {
        var options = Interpreter.Options()
        let small = try SharedArena(capacity: 4096)
        options.sharedArena = small
        let big = try Interpreter(path: try TestPaths.model("hand_landmark_full.tflite"), options: options)
        XCTAssertGreaterThan(big.arenaBytes, 4096)
        XCTAssertFalse(big.arenaMemory === small)
        XCTAssertGreaterThanOrEqual(big.arenaMemory.capacity, big.arenaBytes)
        let input = fixtureRandomFloats(seed: 7, count: big.inputs[0].elementCount, low: 0, high: 1)
        XCTAssertEqual(try big.run([input]), try Interpreter(path: try TestPaths.model("hand_landmark_full.tflite"))
            .run([input]))
    }
}
