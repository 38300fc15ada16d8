#if canImport(Glibc)
import Glibc
#endif

/// How the command line's process allocates. glibc's malloc raises its mmap threshold to the size of the largest
/// mapped block freed (up to 32 MiB), and its trim threshold to twice that: once a model file's bytes (megabytes to
/// tens of megabytes, read whole and freed after loading) are freed, every later buffer under that size comes from
/// the heap and stays resident after it is freed, which raised the tasks' peaks by 2 to 12 MB. The tool pins the
/// threshold at 1 MiB, as `MALLOC_MMAP_THRESHOLD_=1048576` would (glibc then keeps its trim threshold too); an
/// environment that sets that variable keeps its own value, and a C library without `mallopt` is left alone.
public enum AllocatorPolicy {
    public static let mmapThreshold: Int32 = 1 << 20

    public static func pinThresholds() {
        #if canImport(Glibc)
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, let symbol = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mOptionMmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in malloc.h, which Swift's Glibc module leaves out
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mOptionMmapThreshold, mmapThreshold)
        #endif
    }
}
