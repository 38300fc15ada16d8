import Foundation

/// An error as the command line says it: one line in our words. Foundation's file errors
/// (`NSCocoaErrorDomain Code=516 ...`) become the file and the system's reason; a byte that is not text (a control
/// character from a file's header: `PK\x03\x04`) is written as `\xNN`, so a message never carries raw bytes to the
/// terminal. A name's bytes that are not UTF-8 are kept (`NativePath`), printed as `ls` prints them.
enum ErrorText {
    static func describe(_ error: Error) -> String {
        if let usage = error as? UsageError { return escaped(usage.message) }
        let text = "\(error)"
        if error is CocoaError || text.contains("Error Domain=") || text.contains("NSCocoaErrorDomain") {
            return escaped(foundation(error as NSError))
        }
        return escaped(text)
    }

    /// A Foundation error as "PATH: reason", the reason the system's (`strerror`) when one is underneath.
    static func foundation(_ error: NSError) -> String {
        let path = (error.userInfo[NSFilePathErrorKey] as? String)
            ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
        var reason: String?
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(underlying.code)))
        }
        if reason == nil && error.domain == NSPOSIXErrorDomain { reason = String(cString: strerror(Int32(error.code))) }
        if reason == nil && error.domain == NSCocoaErrorDomain {
            switch error.code {
            case NSFileNoSuchFileError, NSFileReadNoSuchFileError: reason = "no such file or folder"
            case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: reason = "permission denied"
            case NSFileWriteFileExistsError: reason = "something is already there"
            case NSFileWriteOutOfSpaceError: reason = "No space left on device"
            case NSFileWriteVolumeReadOnlyError: reason = "Read-only file system"
            case NSFileReadCorruptFileError: reason = "the file is damaged"
            case NSFileReadTooLargeError: reason = "the file is too large"
            case NSFileReadInvalidFileNameError, NSFileWriteInvalidFileNameError: reason = "an invalid file name"
            case NSFileReadUnknownError: reason = "cannot read it"
            case NSFileWriteUnknownError: reason = "cannot write it"
            default: break
            }
        }
        let why = reason ?? "failed (\(error.domain) \(error.code))"
        return path.map { "\($0): \(why)" } ?? why
    }

    /// `text` with each control character (other than tab and line break) and DEL as `\xNN`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if needsEscape(s) {
                out.append(contentsOf: String(format: "\\x%02x", s.value).unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        (s.value < 0x20 && s != "\t" && s != "\n") || (0x7F...0x9F).contains(s.value)
    }
}
