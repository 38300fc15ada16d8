import CProcessorInfo
import Foundation
import Synchronization

/// Runs `count` independent work items on the context's workers: the calling thread and,
/// when the interpreter has more than one thread, the helpers of its `WorkerPool`.
///
/// Each thread starts on its own contiguous share of the items (see `WorkerPool`). Each item
/// computes the same bits whoever runs it (scratch memory is per worker and fully rewritten by
/// every item), so results do not depend on the thread count or on timing.
@inline(__always)
func parallelFor(_ count: Int, context: RunContext, _ body: (_ item: Int, _ worker: Int) -> Void) {
    guard context.threads > 1, count > 1, count < 1 << 31, let pool = context.pool else {
        for i in 0..<count { body(i, 0) }
        return
    }
    withoutActuallyEscaping(body) { pool.run(count, $0) }
}

/// Items per thread a layer that splits finer than its natural items (rows, tiles) aims at:
/// enough that the last thread to finish waits for a fraction of one small item.
let itemsPerThread = 8

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
/// A layer lasts 2 to 400 microseconds; a thread woken through a condition variable
/// (or a GCD pool thread) takes 30 to 80 microseconds to start, so it would join most
/// layers late or not at all. Helpers here poll for the next job for a few milliseconds
/// after each one (a short spin, then yielding the processor between polls), which spans the
/// gaps between layers of an inference, and only then sleep until the next job.
///
/// Items are shared out as pthreadpool (which XNNPACK uses) shares them: each thread owns a
/// contiguous range (the same share of every layer, so a thread mostly reads rows it wrote
/// itself), takes its items one by one from the front, and when its range is empty steals
/// single items from the back of the others'. Each range sits on its own cache lines, so a
/// claim is an atomic operation on a line the thread already holds; only steals move lines
/// between cores. One item at a time keeps the last thread's wait to a fraction of an item.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class WorkerPool: ItemRunner, @unchecked Sendable {
    private let threads: Int
    /// Unclaimed items of each thread, `front | back << 32`, `rangeStride` words apart.
    private let ranges: UnsafeMutablePointer<Atomic<Int>>
    /// `generation << 17 | closed << 16 | joined`: the job's number, whether helpers may still
    /// join it, and how many are in it. Only the caller changes the generation and closed bit.
    private let control = Atomic<Int>(WorkerPool.closedBit)
    private let sleepers = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// The processor the caller ran on when it opened the current job.
    private let callerProcessor = Atomic<Int>(-1)
    /// The current job; written by the caller before it opens the job, read by helpers that joined.
    private var job: ((Int, Int) -> Void)?
    /// Sleeping helpers wait on it.
    private let state = NSCondition()

    private static let joinedMask = (1 << 16) - 1
    private static let closedBit = 1 << 16
    private static let generationShift = 17
    /// 128 bytes: a line and the neighbour the adjacent-line prefetcher pulls with it.
    private static let rangeStride = 16

    /// Polls that only read the control word (or, for the caller, the helpers still working),
    /// then polls that also yield the processor (each under a microsecond), before a helper sleeps.
    static let spinsBeforeYielding = 1_000
    static let pollsBeforeSleeping = 5_000
    /// How long a helper that finds itself on its caller's processor sleeps (see `helperLoop`).
    static let moveSleepMicroseconds: UInt32 = 50

    init(helpers: Int) {
        threads = min(helpers, Self.joinedMask - 1) + 1
        ranges = .allocate(capacity: threads * Self.rangeStride)
        for i in 0..<(threads * Self.rangeStride) { (ranges + i).initialize(to: Atomic<Int>(0)) }
        for worker in 1..<threads {
            let thread = Thread { [self] in helperLoop(worker: worker) }
            thread.name = "TasksVision worker \(worker)"
            thread.start()
        }
    }

    // Helpers hold the pool until `stop`, so this runs once they have all returned.
    deinit {
        ranges.deinitialize(count: threads * Self.rangeStride)
        ranges.deallocate()
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        control.wrappingAdd(1 << Self.generationShift, ordering: .sequentiallyConsistent)
        state.lock()
        state.broadcast()
        state.unlock()
    }

    func run(_ count: Int, _ body: @escaping (Int, Int) -> Void) {
        job = body
        callerProcessor.store(currentProcessor(), ordering: .relaxed)
        for t in 0..<threads {
            let front = t * count / threads, back = (t + 1) * count / threads
            ranges[t * Self.rangeStride].store(front | back << 32, ordering: .relaxed)
        }
        // The previous job is closed and empty, and only the caller writes these bits, so
        // nothing else changes the word now. Sequentially consistent with `sleepers`, so
        // either this sees a helper going to sleep or that helper sees the new job.
        let generation = control.load(ordering: .relaxed) >> Self.generationShift &+ 1
        control.store(generation << Self.generationShift, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            state.lock()
            state.broadcast()
            state.unlock()
        }
        work(worker: 0)
        // Closed, no helper can join; wait for those still on their last item.
        control.bitwiseOr(Self.closedBit, ordering: .relaxed)
        var spins = 0
        while control.load(ordering: .acquiring) & Self.joinedMask != 0 {
            spins += 1
            if spins > Self.spinsBeforeYielding { sched_yield() }
        }
        job = nil
    }

    /// A thread's share of the current job: its own range, then items stolen from the others.
    /// The helper's reference to the job's closure ends when this returns, before it checks out
    /// (the caller's closure must not outlive `run`).
    @inline(never)
    private func work(worker: Int) {
        guard let body = job else { return }
        while let i = claim(thread: worker, fromFront: true) { body(i, worker) }
        for k in 1..<threads {
            let victim = (worker + k) % threads
            while let i = claim(thread: victim, fromFront: false) { body(i, worker) }
        }
    }

    /// The front or back item still unclaimed in a thread's range, if any.
    @inline(__always)
    private func claim(thread: Int, fromFront: Bool) -> Int? {
        let slot = ranges + thread * Self.rangeStride
        var range = slot.pointee.load(ordering: .relaxed)
        while true {
            let front = range & 0xFFFF_FFFF, back = range >> 32
            guard front < back else { return nil }
            let claimed = fromFront ? range + 1 : range - (1 << 32)
            let (exchanged, original) = slot.pointee.compareExchange(
                expected: range, desired: claimed, ordering: .relaxed)
            if exchanged { return fromFront ? front : back - 1 }
            range = original
        }
    }

    private func helperLoop(worker: Int) {
        // Subnormals flushed for the thread's life, as on the caller during an inference (`withSubnormalsFlushed`).
        _ = tasksvision_flush_subnormals()
        var seen = 0
        var polls = 0
        while true {
            let word = control.load(ordering: .acquiring)
            let generation = word >> Self.generationShift
            if generation == seen {
                polls += 1
                if polls >= Self.pollsBeforeSleeping {
                    state.lock()
                    sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
                    while control.load(ordering: .sequentiallyConsistent) >> Self.generationShift == seen
                        && !stopping.load(ordering: .relaxed) {
                        state.wait()
                    }
                    sleepers.wrappingSubtract(1, ordering: .relaxed)
                    state.unlock()
                    polls = 0
                } else if polls > Self.spinsBeforeYielding {
                    sched_yield()
                }
                continue
            }
            if stopping.load(ordering: .acquiring) { return }
            guard word & Self.closedBit == 0 else { seen = generation; continue }
            // Joining fails when another helper joined first or the caller closed the job: look again.
            guard control.compareExchange(expected: word, desired: word + 1, ordering: .acquiring).exchanged
            else { continue }
            seen = generation
            // A new thread may start on its creator's processor, where the caller keeps running:
            // they take turns on it (inferences at one-thread speed) until the load balancer
            // separates them, which took 10 to 100 ms on a two-core Linux VM. A helper that finds
            // itself there leaves the job to the caller and sleeps briefly: waking up places it
            // on an idle processor.
            let sharesProcessor = currentProcessor() == callerProcessor.load(ordering: .relaxed)
            if !sharesProcessor { work(worker: worker) }
            control.wrappingSubtract(1, ordering: .releasing)
            polls = 0
            if sharesProcessor { usleep(Self.moveSleepMicroseconds) }
        }
    }
}

/// The processor the calling thread runs on, or -2 where the system does not say (never equal to
/// `WorkerPool`'s initial -1).
@inline(__always)
private func currentProcessor() -> Int { Int(tasksvision_current_processor()) }
