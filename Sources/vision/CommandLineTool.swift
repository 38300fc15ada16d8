import Foundation

/// A bad command line: printed as one line, exit status 1.
public struct UsageError: Error {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// Runs `vision`'s command line: the command `Commands` finds for the arguments, or the list of them.
public enum CommandLineTool {
    /// `vision --help`: every command of the registry with its summary and brief usage.
    static var usage: String {
        let commands = Commands.all
        var lines = ["usage: vision <command> [options]   ('vision <command> --help' lists its options and defaults)",
                     "", "commands:"]
        let width = (commands.map { $0.table.command.count }.max() ?? 10) + 2
        for c in commands {
            let t = c.table
            lines.append("  " + t.command.padding(toLength: width, withPad: " ", startingAt: 0) + t.summary)
            lines.append(String(repeating: " ", count: width + 2) + "vision \(t.command) \(t.brief)")
        }
        var notes: [String] = []
        for note in commands.compactMap({ $0.usageNote }) where !notes.contains(note) { notes.append(note) }
        return (lines + notes).joined(separator: "\n")
    }

    public static func run(_ args: [String]) throws {
        guard let first = args.first else { throw UsageError("no command given\n\(usage)") }
        if ["help", "--help", "-h"].contains(first) {
            let rest = args.dropFirst().filter { $0 != "--json" }
            // `vision help segment` is `vision segment --help`; `vision help model` the group's.
            if first == "help", !rest.isEmpty {
                try run(Array(rest) + ["--help"])
                return
            }
            print(args.dropFirst().contains("--json") ? CommandList.json : usage)
            return
        }
        if first == "--version" || first == "version" {
            print(VisionVersion.line)
            return
        }
        if let (command, rest) = Commands.find(args) {
            let options = try command.table.parse(rest)
            // The rule between outputs and inputs, for every command, before any work.
            try OutputRule.check(command, options)
            try command.run(options)
            return
        }
        // A group of commands without one of its own (`model info|run`).
        let group = Commands.all.filter { $0.words.count > 1 && $0.words[0] == first }
        guard !group.isEmpty else { throw UsageError("unknown command '\(first)' (try 'vision help')") }
        let subs = group.map { $0.words.dropFirst().joined(separator: " ") }
        guard let sub = args.dropFirst().first else {
            throw UsageError("'vision \(first)' needs " + subs.map { "'\($0)'" }.joined(separator: " or "))
        }
        if sub == "--help" || sub == "-h" {
            let width = (subs.map(\.count).max() ?? 0) + 2
            let lines = zip(subs, group).map { "  " + $0.padding(toLength: width, withPad: " ", startingAt: 0)
                + $1.table.summary }
            throw HelpRequest(text: (["usage: vision \(first) \(subs.joined(separator: "|")) ..."] + lines
                + ["(" + subs.map { "vision \(first) \($0) --help" }.joined(separator: ", ") + ")"])
                .joined(separator: "\n"))
        }
        throw UsageError("unknown 'vision \(first)' command '\(sub)' (\(subs.joined(separator: ", ")))")
    }
}
