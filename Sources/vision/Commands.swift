import Foundation

/// One `vision` command: its option table (the words that run it, its options, its help) and what it does.
/// Dispatch, `vision --help`, its JSON form, the help tests and the benchmark's task list all come from
/// `Commands.all`; a task command conforms to `TaskCommand`, which adds how to make its task.
protocol VisionCommand {
    /// The command's options; `table.command` holds the words that run it ("faces", "model run").
    static var table: OptionTable { get }
    /// A line `vision --help` ends with (said once however many commands share it).
    static var usageNote: String? { get }
    /// Runs the command on its parsed options.
    static func run(_ options: ParsedOptions) throws
    /// The names a folder output other than a task's overlays and masks (`--out DIR`) is filled with, for
    /// `OutputRule`'s check before any work; nil: not known until the work (checked as each file is put in place).
    static func folderOutputNames(_ options: ParsedOptions) -> ((String) -> Bool)?
}

extension VisionCommand {
    static var usageNote: String? { nil }
    static func folderOutputNames(_ options: ParsedOptions) -> ((String) -> Bool)? { nil }
    /// The words that run it: ["gestures", "train"].
    static var words: [String] { table.command.split(separator: " ").map(String.init) }
}

/// The one list of commands, in the order `vision --help` shows them. A command is its file and its
/// line here; `register` adds one at run time (the tests' dummy command).
enum Commands {
    /// One a line, so that commands added at different places merge without conflict.
    static let builtIn: [any VisionCommand.Type] = [
        FacesCommand.self,
        FaceLandmarksCommand.self,
        PalmsCommand.self,
        HandsCommand.self,
        GesturesCommand.self,
        GesturesTrainCommand.self,
        GesturesEvaluateCommand.self,
        GesturesLandmarksCommand.self,
        PoseCommand.self,
        PoseSamplesCommand.self,
        HolisticCommand.self,
        ObjectsCommand.self,
        SegmentCommand.self,
        ClassifyCommand.self,
        EmbedCommand.self,
        ModelInfoCommand.self,
        ModelRunCommand.self,
        ModelsCommand.self,
        ModelsFetchCommand.self,
        KernelsCommand.self,
    ]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var added: [any VisionCommand.Type] = []

    /// Every command: the built-in ones, then those registered.
    static var all: [any VisionCommand.Type] {
        lock.lock(); defer { lock.unlock() }
        return builtIn + added
    }

    /// The commands that run a task over images, videos and cameras.
    static var tasks: [any TaskCommand.Type] { all.compactMap { $0 as? any TaskCommand.Type } }

    /// Adds a command after the built-in ones (once; a second registration of the same words is ignored).
    static func register(_ command: any VisionCommand.Type) {
        lock.lock(); defer { lock.unlock() }
        guard !(builtIn + added).contains(where: { $0.table.command == command.table.command }) else { return }
        added.append(command)
    }

    /// The command the arguments name, the one with most words first (`gestures train` before `gestures`),
    /// and the arguments after its words.
    static func find(_ args: [String]) -> (command: any VisionCommand.Type, rest: [String])? {
        let matching = all.filter { c in
            let words = c.words
            return args.count >= words.count && Array(args.prefix(words.count)) == words
        }
        guard let best = matching.max(by: { $0.words.count < $1.words.count }) else { return nil }
        return (best, Array(args.dropFirst(best.words.count)))
    }

    /// The command run by the words `command` ("gestures train").
    static func named(_ command: String) -> (any VisionCommand.Type)? {
        all.first { $0.table.command == command }
    }

    /// The command another command's option belongs to, for the error naming it ("vision pose").
    static func owner(ofOption name: String, except command: String) -> String? {
        all.first { $0.table.command != command && $0.table.ownOptions.contains(name) }
            .map { "vision \($0.table.command)" }
    }
}
