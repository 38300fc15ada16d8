import Foundation
import TasksVision

/// `vision gestures` (GestureRecognizer): the hands of `vision hands` with their gestures.
enum GesturesCommand: TaskCommand {
    static let table = OptionTable(
        command: "gestures", summary: "Hand gestures (MediaPipe GestureRecognizer).",
        positional: TaskCommandOptions.positional,
        options: [TaskCommandOptions.model("gesture recognizer .task bundle", default: HandsCommand.gestureModel)]
            + HandsCommand.handOptions + HandsCommand.gestureOptions + TaskCommandOptions.common,
        notes: ["Custom gestures: vision gestures train|evaluate|landmarks (each with --help); an image named like",
                "one of these is given as ./train."])

    static let benchmarks = [
        BenchmarkEntry(name: "gestures", arguments: ["--num-hands", "2"], photo: "hands_two_1.png",
                       sequence: "hand_asl_1", reference: reference(video: false)),
        BenchmarkEntry(name: "gestures-video", arguments: ["--num-hands", "2"], mode: .video,
                       photo: "hands_two_1.png", reference: reference(video: true)),
    ]

    static func reference(video: Bool) -> BenchmarkEntry.Reference {
        .init("GestureRecognizer", model: HandsCommand.gestureModel, call: "recognize", video: video,
              options: ["num_hands": 2])
    }

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        return TaskMaker { setup in
            let model = try TaskCommandOptions.modelPath(o, default: HandsCommand.gestureModel,
                                                         kind: .gestureRecognizerBundle)
            let options = setup.options(GestureRecognizerOptions(), model: model)
            try HandsCommand.setHandOptions(options, o)
            let canned = ClassifierOptions(), custom = ClassifierOptions()
            canned.categoryAllowlist = o.list("--canned-allowlist")
            canned.categoryDenylist = o.list("--canned-denylist")
            canned.scoreThreshold = try o.float("--score-threshold")
            options.cannedGesturesClassifierOptions = canned
            // Without --score-threshold a custom classifier keeps its metadata's threshold, as in MediaPipe.
            if o.isSet("--score-threshold") {
                custom.scoreThreshold = canned.scoreThreshold
                options.customGesturesClassifierOptions = custom
            }
            options.resultCallback = setup.callback(HandsCommand.report)
            return LibraryFrameTask(try GestureRecognizer(options: options), roi: roi, report: HandsCommand.report)
        }
    }
}
