// The iteration order of a java.util.HashMap (and HashSet) of String keys that only grows: keys by
// bucket, `(h ^ (h >>> 16)) & (capacity - 1)` of their `String.hashCode()`, and within a bucket in
// insertion order (a resize splits each bucket keeping its order). The capacity starts at 16 and
// doubles when the size passes 3/4 of it, or when a key joins a bucket of eight or more while the
// capacity is under 64 (HashMap's treeifyBin). A bucket of nine or more keys at capacity 64 or more
// would become a red-black tree, whose order is not followed here; it takes nine class names with the
// same low hash bits.
struct JavaHashOrder: Sendable, Equatable {
    private(set) var keys: [String] = []
    private var buckets: [Int] = []
    private var position: [String: Int] = [:]
    private var capacity = 16

    private static func spread(_ key: String) -> Int {
        let h = UInt32(bitPattern: Java.hashCode(key))
        return Int(h ^ (h >> 16))
    }

    func contains(_ key: String) -> Bool { position[key] != nil }

    /// Adds a key if new (a HashMap put of a new key, or a HashSet add).
    mutating func insert(_ key: String) {
        guard position[key] == nil else { return }
        let hash = Self.spread(key)
        let chain = buckets.reduce(0) { $0 + ($1 & (capacity - 1) == hash & (capacity - 1) ? 1 : 0) }
        position[key] = keys.count
        keys.append(key)
        buckets.append(hash)
        if chain >= 8 && capacity < 64 { capacity *= 2 }
        if keys.count > capacity / 4 * 3 { capacity *= 2 }
    }

    /// The keys in the order a HashMap iterates them.
    var iterationOrder: [String] {
        let mask = capacity - 1
        return keys.indices.sorted { (buckets[$0] & mask, $0) < (buckets[$1] & mask, $1) }.map { keys[$0] }
    }
}
