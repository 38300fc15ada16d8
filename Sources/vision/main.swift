import Foundation
import TasksVisionEngine

// `vision`: run TasksVision on models, images, folders and frame sequences.
setvbuf(stdout, nil, _IOLBF, 0)
BLASConfiguration.relaunchWithBetterBLASKernelsIfNeeded()
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    try CommandLineTool.run(arguments)
    exit(0)
} catch let error as UsageError {
    FileHandle.standardError.write(Data("vision: \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("vision: \(error)\n".utf8))
    exit(1)
}
