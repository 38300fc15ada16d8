import Foundation
import TasksVision

/// `vision --help --json`: the registry's commands and the benchmark's task runs as one JSON object, for
/// the tools that drive `vision` and `vision-bench` (tools/bench_tasks.py, bench_memory.py, ray).
enum CommandList {
    struct Command: Encodable {
        let command: String
        let summary: String
        /// Runs a task over images, videos and cameras (takes PATH..., --video, --json, --stdin).
        let task: Bool
        /// The options it writes files with (`OutputRule.outputOptions`), for tools that check every writer
        /// (tools/fault_injection.sh).
        let outputs: [Output]
    }

    struct Output: Encodable {
        let option: String
        /// DIR (a folder to fill), a file (F.csv), or either (DIR|FILE.mp4).
        let placeholder: String
    }

    struct Run: Encodable {
        let name: String
        let command: String
        let arguments: [String]
        let mode: String
        let photo: String
        let sequence: String?
        let alsoTimes: [String]
        let reference: BenchmarkEntry.Reference?
    }

    struct List: Encodable {
        let commands: [Command]
        let benchmarks: [Run]
    }

    static var json: String {
        let commands = Commands.all.map {
            Command(command: $0.table.command, summary: $0.table.summary, task: $0 is any TaskCommand.Type,
                    outputs: $0.table.options.filter { OutputRule.outputOptions.contains($0.name) }
                        .map { Output(option: $0.name, placeholder: $0.placeholder) })
        }
        let runs = BenchmarkTask.all.map { t in
            Run(name: t.entry.name, command: t.commandName, arguments: t.entry.arguments,
                mode: t.entry.mode == .video ? "video" : "image", photo: t.entry.photo, sequence: t.entry.sequence,
                alsoTimes: t.entry.alsoTimes, reference: t.entry.reference)
        }
        let data = (try? TaskCommandSupport.encoder.encode(List(commands: commands, benchmarks: runs))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
