@testable import TasksVisionEngine
import XCTest

/// The pool's claims: every item runs exactly once, on a valid worker, whatever the count, also
/// when helpers have gone to sleep between jobs.
final class WorkerPoolTests: XCTestCase {
    func testEveryItemRunsOnceOnAValidWorker() throws {
        let helpers = 3
        guard let pool = makeWorkerPool(helpers: helpers) else { throw XCTSkip("no atomics on this system") }
        defer { pool.stop() }
        for (round, count) in [2, 3, 4, 7, 64, 1000, 1, 5000, 9].enumerated() {
            let hits = UnsafeMutablePointer<Int>.allocate(capacity: count)
            let workers = UnsafeMutablePointer<Int>.allocate(capacity: count)
            hits.initialize(repeating: 0, count: count)
            workers.initialize(repeating: -1, count: count)
            defer { hits.deallocate(); workers.deallocate() }
            // Distinct items write distinct slots, so plain stores suffice when each runs once.
            pool.run(count) { item, worker in
                hits[item] += 1
                workers[item] = worker
                var spin = 0
                for j in 0..<(item % 7) * 200 { spin &+= j }
                if spin == -1 { hits[item] = 0 }
            }
            for i in 0..<count {
                XCTAssertEqual(hits[i], 1, "count \(count): item \(i) ran \(hits[i]) times")
                XCTAssertTrue((0...helpers).contains(workers[i]), "count \(count): item \(i) on worker \(workers[i])")
            }
            // Every few rounds, long enough for the helpers to go to sleep.
            if round % 3 == 2 { usleep(100_000) }
        }
    }
}
