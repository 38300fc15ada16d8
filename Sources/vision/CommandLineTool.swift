import Foundation

/// A bad command line: printed as one line, exit status 1.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

enum CommandLineTool {
    static let usage = """
    usage: vision <command> [options]

    commands:
      faces [options] PATH... | --video DIR   detect faces (BlazeFace, MediaPipe FaceDetector)
      hands [options] PATH... | --video DIR   hand landmarks and handedness (MediaPipe HandLandmarker)
      gestures [options] PATH... | --video DIR   hand gestures (MediaPipe GestureRecognizer)
      pose [--accurate] [options] PATH... | --video DIR   body pose, 33 landmarks (ML Kit PoseDetector)
      model info MODEL                     inputs, outputs, op counts and metadata of a model
      model run MODEL --input F.npy ... --output DIR [--threads N]
                                           run one inference, write DIR/<output index>.npy
      kernels [--supported]                the CPU, the kernel sets it supports and the one in use
                                           (TASKSVISION_KERNELS=portable|avx2|avx512|neon forces one)
    MODEL is a .tflite file or a member of a .task bundle: bundle.task:member.tflite (nested with more colons).
    """

    static func run(_ args: [String]) throws {
        guard let command = args.first else { throw UsageError("no command given\n\(usage)") }
        let rest = Array(args.dropFirst())
        switch command {
        case "model": try ModelCommand.run(rest)
        case "models": try ModelsCommand.run(rest)
        case "kernels": try KernelsCommand.run(rest)
        case "faces": try FacesCommand.run(rest)
        case "hands": try HandsCommand.run(rest, gestures: false)
        case "gestures": try HandsCommand.run(rest, gestures: true)
        case "pose": try PoseCommand.run(rest)
        case "help", "--help", "-h": print(usage)
        default: throw UsageError("unknown command '\(command)' (try 'vision help')")
        }
    }
}

/// Parses `--name value` options and positional arguments.
struct OptionParser {
    var positional: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    init(_ args: [String], valued: Set<String>, flags known: Set<String>) throws {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a.hasPrefix("--") {
                var name = a, inline: String? = nil
                if let eq = a.firstIndex(of: "=") { name = String(a[..<eq]); inline = String(a[a.index(after: eq)...]) }
                if valued.contains(name) {
                    if let v = inline { values[name, default: []].append(v) } else {
                        guard i + 1 < args.count else { throw UsageError("option \(name) needs a value") }
                        values[name, default: []].append(args[i + 1]); i += 1
                    }
                } else if known.contains(name) {
                    flags.insert(name)
                } else {
                    throw UsageError("unknown option '\(name)'")
                }
            } else {
                positional.append(a)
            }
            i += 1
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func int(_ name: String, default d: Int) throws -> Int {
        guard let v = value(name) else { return d }
        guard let i = Int(v) else { throw UsageError("option \(name) takes a whole number, got '\(v)'") }
        return i
    }
}
