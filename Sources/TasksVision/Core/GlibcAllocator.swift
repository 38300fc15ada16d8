#if canImport(Glibc)
import Glibc
#endif

/// What TasksVision asks of the C allocator where it is glibc, whose `mallopt` and `malloc_trim` are looked up at run
/// time (Swift's Glibc module declares neither); elsewhere nothing.
///
/// glibc's malloc raises its mmap threshold to the size of the largest mapped block freed (up to 32 MiB), and its trim
/// threshold to twice that: once a model file's bytes (read whole, freed after loading) are freed, every later buffer
/// under that size comes from the heap and stays resident after it is freed. Loading a task also makes large
/// short-lived copies (a bundle's bytes, each model's, weights converted to float) whose pages glibc keeps.
public enum GlibcAllocator {
    /// The mmap threshold `pinMmapThreshold` sets.
    public static let mmapThreshold: Int32 = 1 << 20

    /// Pins the mmap threshold at 1 MiB, as `MALLOC_MMAP_THRESHOLD_=1048576` would (glibc then keeps its trim
    /// threshold too): the `vision` executable calls it before it loads anything. An environment that sets that
    /// variable keeps its own value.
    public static func pinMmapThreshold() {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, let mallopt = function("mallopt", as: Mallopt.self) else {
            return
        }
        let mOptionMmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in malloc.h
        _ = mallopt(mOptionMmapThreshold, mmapThreshold)
        #endif
    }

    /// Returns to the system the pages glibc keeps after they were freed (`malloc_trim(0)`): the tasks call it once
    /// their models are loaded.
    static func returnFreePages() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }

    #if canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = function("malloc_trim", as: Trim.self)

    /// A C function of the process by name (RTLD_DEFAULT, the null handle on glibc).
    private static func function<T>(_ name: String, as type: T.Type) -> T? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
    #endif
}
