import Dispatch

/// Runs `count` independent work items on up to `threads` workers.
///
/// Work is split into the same items whatever the thread count, and each item
/// computes the same bits whoever runs it, so results do not depend on threads.
@inline(__always)
func parallelFor(_ count: Int, threads: Int, _ body: (_ item: Int, _ worker: Int) -> Void) {
    if threads <= 1 || count <= 1 {
        for i in 0..<count { body(i, 0) }
        return
    }
    let workers = min(threads, count)
    withoutActuallyEscaping(body) { body in
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var i = w
            while i < count { body(i, w); i += workers }
        }
    }
}
