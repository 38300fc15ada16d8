#if canImport(Glibc)
import Glibc
#endif

/// Returns to the system the memory the C allocator keeps after it was freed. Loading a task's models makes
/// large short-lived copies (a bundle's bytes, each model's, weights converted to float); glibc keeps most of
/// their pages (its mmap threshold grows with every large block freed, so later ones come from the heap), which
/// would stay in the process's resident set. glibc's `malloc_trim`, looked up at run time (Swift's Glibc module
/// does not declare it); elsewhere nothing to do.
enum HeapTrim {
    #if canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        // RTLD_DEFAULT is the null handle on glibc.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()
    #endif

    static func returnFreePages() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }
}
