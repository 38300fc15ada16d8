import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing standard output with write(2), so that a failed write is seen at once: a closed pipe (EPIPE, as under
/// `| head -1`) ends the run quietly with status 141, as a shell reports a command killed by SIGPIPE; any other
/// failure (ENOSPC on `> /dev/full`, EIO) is named on standard error and ends the run with status 1. Either way the
/// ffmpeg children are stopped and partial files removed: output that was lost is never reported as a success.
enum StandardOutputWriter {
    /// Writes all of `text` to file descriptor 1, or ends the process.
    static func write(_ text: String) {
        // A file name's bytes that are not UTF-8 are printed as themselves (NativePath).
        let bytes = NativePath.bytes(text)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(1, UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { fail(n < 0 ? errno : EIO) }
            written += n
        }
    }

    /// Ends the run after a failed write to standard output.
    static func fail(_ code: Int32) -> Never {
        if code == EPIPE { Interrupt.stopNow(status: 141, message: nil, flush: false) }
        Interrupt.stopNow(status: 1, message: "cannot write standard output: " + String(cString: strerror(code)),
                          flush: false)
    }

    /// Writes `text` as the process ends (`Interrupt.stopNow`): a failure is not reported again.
    static func writeAtExit(_ text: String) {
        let bytes = NativePath.bytes(text)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(1, UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { return }
            written += n
        }
    }
}

/// `print` of this module: through `StandardOutputWriter`, so that every command's output is checked.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    StandardOutput.write(items.map { "\($0)" }.joined(separator: separator) + terminator)
}

/// What the executable's main does around `CommandLineTool.run` (issue 45): signals caught, the arguments' own
/// bytes, standard output checked, exit 130 after a signal.
public enum ToolProcess {
    /// Catches SIGINT and SIGTERM from now on (first thing in main).
    public static func start() { Interrupt.install() }
    /// The command line's arguments from their bytes (a file name that is not UTF-8 is kept: `NativePath`).
    public static var arguments: [String] { NativePath.arguments }
    /// Exits with 130 (after "vision: interrupted") if a signal ended the run.
    public static func exitIfInterrupted() { Interrupt.exitIfRequested() }
    /// An error as one line in our words (`ErrorText`): no Foundation error codes, no raw bytes.
    public static func message(_ error: Error) -> String { ErrorText.describe(error) }
    /// Writes a line to standard output, checked as every output line is.
    public static func printLine(_ text: String) { StandardOutput.write(text + "\n") }
}
