import Foundation

/// Runs `count` independent work items on the context's workers: the calling thread and,
/// when the interpreter has more than one thread, the helpers of its `WorkerPool`.
///
/// Items are handed out one at a time (see `WorkerPool`). Each item computes the same
/// bits whoever runs it (scratch memory is per worker and fully rewritten by every item),
/// so results do not depend on the thread count or on timing.
@inline(__always)
func parallelFor(_ count: Int, context: RunContext, _ body: (_ item: Int, _ worker: Int) -> Void) {
    guard context.threads > 1, count > 1, let pool = context.pool else {
        for i in 0..<count { body(i, 0) }
        return
    }
    withoutActuallyEscaping(body) { pool.run(count, $0) }
}

/// Helper threads that stay with an interpreter and spin briefly between layers.
///
/// A layer lasts 10 to 400 microseconds; a thread woken through a condition variable
/// (or a GCD pool thread) takes 30 to 80 microseconds to start, so it would join most
/// layers late or not at all. Helpers here poll for the next job for about two milliseconds
/// after each one, which spans the gaps between layers of an inference, and only then
/// sleep until the next job (as pthreadpool, which XNNPACK uses, does).
final class WorkerPool: @unchecked Sendable {
    /// Guards everything below and is the condition sleeping helpers wait on.
    private let state = NSCondition()
    private var generation = 0
    private var job: ((Int, Int) -> Void)?
    /// Items not yet claimed: front..<back. The caller takes them from the front, helpers from
    /// the back, so each thread walks through neighbouring items (neighbouring rows share input
    /// rows and cache lines) and a late helper simply finds fewer left.
    private var front = 0
    private var back = 0
    /// Helpers working on the current job.
    private var joined = 0
    private var sleeping = 0
    private var stopping = false

    /// Polls before sleeping: each takes the lock once and yields the processor once, about a microsecond.
    static let pollsBeforeSleeping = 2_000

    init(helpers: Int) {
        for worker in stride(from: 1, through: helpers, by: 1) {
            let thread = Thread { [self] in helperLoop(worker: worker) }
            thread.name = "TasksVision worker \(worker)"
            thread.start()
        }
    }

    /// Ends the helper threads (they hold the pool until they return).
    func stop() {
        state.lock()
        stopping = true
        state.broadcast()
        state.unlock()
    }

    /// Runs items 0..<count on this thread (worker 0) and on whichever helpers join in;
    /// returns when every item is done.
    func run(_ count: Int, _ body: @escaping (Int, Int) -> Void) {
        state.lock()
        job = body
        front = 0
        back = count
        generation &+= 1
        if sleeping > 0 { state.broadcast() }
        state.unlock()
        while let i = claimFront() { body(i, 0) }
        // Wait for helpers still on their last item; none can join once the items are gone.
        while true {
            state.lock()
            let busy = joined
            if busy == 0 { job = nil }
            state.unlock()
            if busy == 0 { return }
        }
    }

    @inline(__always)
    private func claimFront() -> Int? {
        state.lock()
        defer { state.unlock() }
        guard front < back else { return nil }
        front += 1
        return front - 1
    }

    @inline(__always)
    private func claimBack() -> Int? {
        state.lock()
        defer { state.unlock() }
        guard front < back else { return nil }
        back -= 1
        return back
    }

    /// The helper's share of the current job. Its reference to the job's closure ends when
    /// this returns, before the helper checks out (the caller's closure must not outlive `run`).
    private func work(worker: Int) {
        state.lock()
        let body = job
        state.unlock()
        guard let body else { return }
        while let i = claimBack() { body(i, worker) }
    }

    private func helperLoop(worker: Int) {
        var seen = 0
        var polls = 0
        while true {
            state.lock()
            if stopping { state.unlock(); return }
            guard generation != seen else {
                polls += 1
                if polls >= Self.pollsBeforeSleeping {
                    sleeping += 1
                    while generation == seen && !stopping { state.wait() }
                    sleeping -= 1
                    polls = 0
                }
                state.unlock()
                // Back off between polls, so that the caller's item claims rarely find the lock taken.
                sched_yield()
                continue
            }
            seen = generation
            // Join only while items remain, so the caller never waits for a late helper.
            guard front < back, job != nil else { state.unlock(); continue }
            joined += 1
            state.unlock()
            work(worker: worker)
            state.lock()
            joined -= 1
            state.unlock()
            polls = 0
        }
    }
}
