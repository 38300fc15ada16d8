import Foundation

/// A bad command line: printed as one line, exit status 1.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

enum CommandLineTool {
    /// The commands' tables, for `vision --help` (each command's own `--help` prints its options).
    static let tables: [OptionTable] = [
        FacesCommand.table, PalmsCommand.table, HandsCommand.handsTable, HandsCommand.gesturesTable,
        GesturesTrainCommand.table, GesturesEvaluateCommand.table, GesturesLandmarksCommand.table, PoseCommand.table,
        PoseSamplesCommand.table, ModelCommand.infoTable, ModelCommand.runTable, ModelsCommand.listTable,
        ModelsCommand.fetchTable, KernelsCommand.table,
    ]

    static var usage: String {
        var lines = ["usage: vision <command> [options]   ('vision <command> --help' lists its options and defaults)",
                     "", "commands:"]
        let width = (tables.map(\.command.count).max() ?? 10) + 2
        for t in tables {
            lines.append("  " + t.command.padding(toLength: width, withPad: " ", startingAt: 0) + t.summary)
            lines.append(String(repeating: " ", count: width + 2) + "vision \(t.command) \(t.brief)")
        }
        lines.append(ModelCommand.modelNote)
        return lines.joined(separator: "\n")
    }

    static func run(_ args: [String]) throws {
        guard let command = args.first else { throw UsageError("no command given\n\(usage)") }
        let rest = Array(args.dropFirst())
        switch command {
        case "model": try ModelCommand.run(rest)
        case "models": try ModelsCommand.run(rest)
        case "kernels": try KernelsCommand.run(rest)
        case "faces": try FacesCommand.run(rest)
        case "palms": try PalmsCommand.run(rest)
        case "hands": try HandsCommand.run(rest, gestures: false)
        case "gestures":
            // Training subcommands; an image literally named like one is given as ./train.
            switch rest.first {
            case "train": try GesturesTrainCommand.run(Array(rest.dropFirst()))
            case "evaluate": try GesturesEvaluateCommand.run(Array(rest.dropFirst()))
            case "landmarks": try GesturesLandmarksCommand.run(Array(rest.dropFirst()))
            default: try HandsCommand.run(rest, gestures: true)
            }
        case "pose" where rest.first == "samples": try PoseSamplesCommand.run(Array(rest.dropFirst()))
        case "pose": try PoseCommand.run(rest)
        case "help", "--help", "-h": print(usage)
        case "--version", "version": print(VisionVersion.line)
        default: throw UsageError("unknown command '\(command)' (try 'vision help')")
        }
    }
}
