import Foundation
import TasksVision
import TasksVisionEngine
import vision

// `vision`: run TasksVision on models, images, folders, frame sequences, videos and cameras. The commands are
// the module `vision` (Sources/vision, one type each in its registry); this file only runs them.
setvbuf(stdout, nil, _IOLBF, 0)
// A child ffmpeg that exits early, or a closed standard output, must give an error on write, not kill us.
signal(SIGPIPE, SIG_IGN)
ToolProcess.start()
BLASConfiguration.relaunchWithBetterBLASKernelsIfNeeded()
GlibcAllocator.pinMmapThreshold()
// From the raw bytes: a file name that is not UTF-8 is kept (NativePath).
let arguments = Array(ToolProcess.arguments.dropFirst())

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vision: \(message)\n".utf8))
    ToolProcess.exitIfInterrupted()
    exit(1)
}

do {
    try CommandLineTool.run(arguments)
    ToolProcess.exitIfInterrupted()
    exit(0)
} catch let help as HelpRequest {
    ToolProcess.printLine(help.text)
    exit(0)
} catch let error as UsageError {
    fail(ToolProcess.message(error))
} catch let failures as InputFailures {
    // Each failure was reported as it happened; a total helps only when there were several inputs.
    if failures.total > 1 { fail("\(failures)") }
    ToolProcess.exitIfInterrupted()
    exit(1)
} catch {
    fail(ToolProcess.message(error))
}
