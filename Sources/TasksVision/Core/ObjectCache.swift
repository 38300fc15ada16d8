import Foundation

/// An object made on first use and kept, safe to share between threads: what a value type holds to give
/// the same Apple object (a mask's `CVPixelBuffer`) each time it is asked.
final class ObjectCache: @unchecked Sendable {
    private let lock = NSLock()
    private var object: AnyObject?

    /// The kept object, or the one `make` makes (then kept).
    func value(_ make: () throws -> AnyObject) rethrows -> AnyObject {
        lock.lock(); defer { lock.unlock() }
        if let object { return object }
        let made = try make()
        object = made
        return made
    }
}
