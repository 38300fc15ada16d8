#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Activation memory for interpreters that run one after another, never at once (a task that runs several
/// models in turn, under one lock): each interpreter's arena starts at the same address, so the models together
/// need the largest one's activations instead of their sum. The memory is reserved address space, zero pages
/// committed as the interpreters first touch them.
///
/// An interpreter keeps no activation from one `invoke()` to the next (every layer writes what it reads, zero
/// borders included), so another interpreter may overwrite the arena between two calls; its outputs must be read
/// before another interpreter of the same arena runs.
public final class SharedArena: @unchecked Sendable {
    /// Bytes reserved; an interpreter whose activations need more takes an arena of its own.
    public let capacity: Int
    let base: UnsafeMutableRawPointer

    /// Reserves `capacity` bytes (rounded up to whole pages); throws when the system refuses the reservation.
    public init(capacity: Int = 256 << 20) throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = max(page, (capacity + page - 1) / page * page)
        #if canImport(Glibc)
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
        #else
        let flags = MAP_PRIVATE | MAP_ANON
        #endif
        let p = mmap(nil, size, PROT_READ | PROT_WRITE, flags, -1, 0)
        guard let p, p != MAP_FAILED else {
            throw EngineError.invalidArgument("cannot reserve \(size) bytes of address space for activations")
        }
        base = p
        self.capacity = size
    }

    deinit { munmap(base, capacity) }
}
