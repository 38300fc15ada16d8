import Foundation
import Synchronization

/// Runs `count` independent work items on the context's workers: the calling thread and,
/// when the interpreter has more than one thread, the helpers of its `WorkerPool`.
///
/// Items are handed out in runs of neighbours (see `WorkerPool`). Each item computes the same
/// bits whoever runs it (scratch memory is per worker and fully rewritten by every item),
/// so results do not depend on the thread count or on timing.
@inline(__always)
func parallelFor(_ count: Int, context: RunContext, _ body: (_ item: Int, _ worker: Int) -> Void) {
    guard context.threads > 1, count > 1, count < 1 << 31, let pool = context.pool else {
        for i in 0..<count { body(i, 0) }
        return
    }
    // Items in at most `chunksPerThread` runs of neighbours per thread: one claim (an atomic
    // exchange, whose cache line moves between the cores) per run, not per item (a row of a
    // small pooling layer is under a microsecond of work).
    let chunks = min(count, chunksPerThread * context.threads)
    guard chunks < count else {
        withoutActuallyEscaping(body) { pool.run(count, $0) }
        return
    }
    withoutActuallyEscaping(body) { body in
        pool.run(chunks) { chunk, worker in
            for i in (chunk * count / chunks)..<((chunk + 1) * count / chunks) { body(i, worker) }
        }
    }
}

/// Runs of items per thread `parallelFor` hands out: enough for a thread that starts late, or is
/// slowed, to leave the rest to the others.
let chunksPerThread = 4

/// What runs a layer's items on more than one thread (`WorkerPool`).
protocol ItemRunner: AnyObject, Sendable {
    /// Runs items 0..<count on the calling thread (worker 0) and on whichever helpers join in;
    /// returns when every item is done.
    func run(_ count: Int, _ body: @escaping (Int, Int) -> Void)
    /// Ends the helper threads.
    func stop()
}

/// A pool of `helpers` threads where the system has atomics (Swift's `Synchronization`: Linux,
/// macOS 15, iOS 18 and their peers); elsewhere nil, and interpreters run on one thread (with
/// the same results).
func makeWorkerPool(helpers: Int) -> ItemRunner? {
    guard helpers > 0 else { return nil }
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { return WorkerPool(helpers: helpers) }
    return nil
}

/// Helper threads that stay with an interpreter and poll between layers.
///
/// A layer lasts 10 to 400 microseconds; a thread woken through a condition variable
/// (or a GCD pool thread) takes 30 to 80 microseconds to start, so it would join most
/// layers late or not at all. Helpers here poll for the next job for a few milliseconds
/// after each one (a short spin, then yielding the processor between polls), which spans the
/// gaps between layers of an inference, and only then sleep until the next job (as
/// pthreadpool, which XNNPACK uses, does). Polls and item claims are atomic: a lock taken per
/// poll and per claim (the pool's first form) delayed the helpers' start by microseconds,
/// which is the length of a short layer's items.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class WorkerPool: ItemRunner, @unchecked Sendable {
    /// Guards `job`, `sleeping` and `stopping`; sleeping helpers wait on it.
    private let state = NSCondition()
    /// Bumped for each job (and to stop); helpers poll it without the lock.
    private let generation = Atomic<Int>(0)
    private var job: ((Int, Int) -> Void)?
    /// Items not yet claimed, front..<back, as `front | back << 32`. The caller takes them from
    /// the front, helpers from the back, so each thread walks through neighbouring items
    /// (neighbouring rows share input rows and cache lines) and a late helper finds fewer left.
    private let items = Atomic<Int>(0)
    /// Helpers working on the current job.
    private let joined = Atomic<Int>(0)
    private var sleeping = 0
    private var stopping = false

    /// Polls that only read the generation (or, for the caller, the helpers still working), then
    /// polls that also yield the processor (each under a microsecond), before a helper sleeps.
    static let spinsBeforeYielding = 1_000
    static let pollsBeforeSleeping = 5_000

    init(helpers: Int) {
        for worker in stride(from: 1, through: helpers, by: 1) {
            let thread = Thread { [self] in helperLoop(worker: worker) }
            thread.name = "TasksVision worker \(worker)"
            thread.start()
        }
    }

    func stop() {
        state.lock()
        stopping = true
        generation.wrappingAdd(1, ordering: .releasing)
        state.broadcast()
        state.unlock()
    }

    func run(_ count: Int, _ body: @escaping (Int, Int) -> Void) {
        state.lock()
        job = body
        items.store(count << 32, ordering: .relaxed)
        generation.wrappingAdd(1, ordering: .releasing)
        if sleeping > 0 { state.broadcast() }
        state.unlock()
        while let i = claim(fromFront: true) { body(i, 0) }
        // Wait for helpers still on their last item; none can join once the items are gone (they
        // join under the lock, and only while items remain).
        while true {
            var spins = 0
            while joined.load(ordering: .acquiring) > 0 {
                spins += 1
                if spins > Self.spinsBeforeYielding { sched_yield() }
            }
            state.lock()
            let busy = joined.load(ordering: .acquiring)
            if busy == 0 { job = nil }
            state.unlock()
            if busy == 0 { return }
        }
    }

    /// The helper's share of the current job. Its reference to the job's closure ends when
    /// this returns, before the helper checks out (the caller's closure must not outlive `run`).
    @inline(never)
    private func work(worker: Int) {
        state.lock()
        let body = job
        state.unlock()
        guard let body else { return }
        while let i = claim(fromFront: false) { body(i, worker) }
    }

    /// The front or back item still unclaimed, if any.
    @inline(__always)
    private func claim(fromFront: Bool) -> Int? {
        var range = items.load(ordering: .relaxed)
        while true {
            let front = range & 0xFFFF_FFFF, back = range >> 32
            guard front < back else { return nil }
            let claimed = fromFront ? range + 1 : range - (1 << 32)
            let (exchanged, original) = items.compareExchange(expected: range, desired: claimed, ordering: .relaxed)
            if exchanged { return fromFront ? front : back - 1 }
            range = original
        }
    }

    private var unclaimed: Bool { let range = items.load(ordering: .relaxed); return range & 0xFFFF_FFFF < range >> 32 }

    private func helperLoop(worker: Int) {
        var seen = 0
        var polls = 0
        while true {
            if generation.load(ordering: .acquiring) == seen {
                polls += 1
                if polls >= Self.pollsBeforeSleeping {
                    state.lock()
                    sleeping += 1
                    while generation.load(ordering: .acquiring) == seen && !stopping { state.wait() }
                    sleeping -= 1
                    state.unlock()
                    polls = 0
                } else if polls > Self.spinsBeforeYielding {
                    sched_yield()
                }
                continue
            }
            state.lock()
            if stopping { state.unlock(); return }
            seen = generation.load(ordering: .acquiring)
            guard job != nil, unclaimed else { state.unlock(); continue }
            joined.wrappingAdd(1, ordering: .relaxed)
            state.unlock()
            work(worker: worker)
            joined.wrappingAdd(-1, ordering: .releasing)
            polls = 0
        }
    }
}
