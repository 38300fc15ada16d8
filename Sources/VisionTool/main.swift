import Foundation
import TasksVisionEngine
import vision

// `vision`: run TasksVision on models, images, folders, frame sequences, videos and cameras. The commands are
// the module `vision` (Sources/vision, one type each in its registry); this file only runs them.
setvbuf(stdout, nil, _IOLBF, 0)
// A child ffmpeg that exits early must give an error on write, not kill us.
signal(SIGPIPE, SIG_IGN)
BLASConfiguration.relaunchWithBetterBLASKernelsIfNeeded()
let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vision: \(message)\n".utf8))
    exit(1)
}

do {
    try CommandLineTool.run(arguments)
    exit(0)
} catch let help as HelpRequest {
    print(help.text)
    exit(0)
} catch let error as UsageError {
    fail(error.message)
} catch let failures as InputFailures {
    // Each failure was reported as it happened; a total helps only when there were several inputs.
    if failures.total > 1 { fail("\(failures)") }
    exit(1)
} catch {
    fail("\(error)")
}
