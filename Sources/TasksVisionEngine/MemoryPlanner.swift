/// Assigns every activation tensor an offset in one arena so that tensors whose
/// lifetimes overlap never share bytes, while dead tensors' bytes are reused.
///
/// Greedy by size (largest first, lowest fitting offset), as TFLite Micro's
/// GreedyMemoryPlanner and XNNPACK's memory planner do.
struct MemoryPlanner {
    struct Request {
        var id: Int
        var bytes: Int
        /// First and last execution step (inclusive) during which the buffer must hold its value.
        var firstStep: Int
        var lastStep: Int
    }

    static let alignment = 64

    /// Returns the offset of each request (by id) and the arena size.
    static func plan(_ requests: [Request]) -> (offsets: [Int: Int], size: Int) {
        let sorted = requests.sorted { a, b in a.bytes != b.bytes ? a.bytes > b.bytes : a.id < b.id }
        var placed: [(offset: Int, end: Int, first: Int, last: Int)] = []
        var offsets: [Int: Int] = [:]
        var size = 0
        for r in sorted {
            let bytes = (r.bytes + alignment - 1) / alignment * alignment
            // Live neighbours in time, by offset.
            let conflicts = placed.filter { $0.first <= r.lastStep && r.firstStep <= $0.last }.sorted {
                $0.offset < $1.offset
            }
            var candidate = 0
            for c in conflicts {
                if candidate + bytes <= c.offset { break }
                candidate = max(candidate, c.end)
            }
            placed.append((candidate, candidate + bytes, r.firstStep, r.lastStep))
            offsets[r.id] = candidate
            size = max(size, candidate + bytes)
        }
        return (offsets, size)
    }
}
