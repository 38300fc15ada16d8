/// What every task checks of its base options before loading a model.
enum TaskSetup {
    /// The model file of the base options, found where `ModelLocator` looks; checks `threads` too.
    static func modelPath(_ base: BaseOptions) throws -> String {
        guard (1...64).contains(base.threads) else {
            throw VisionTaskError.invalidOption("baseOptions.threads must be in 1...64, got \(base.threads)")
        }
        guard let path = base.modelAssetPath, !path.isEmpty else {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.missingModelPath)
        }
        return try resolve(path)
    }

    /// A model path or name as `ModelLocator` finds it; not found is the task's error, listing the places looked at.
    static func resolve(_ path: String) throws -> String {
        do {
            return try ModelLocator.resolve(path)
        } catch let error as ModelNotFoundError {
            throw VisionTaskError.modelNotFound(error.description)
        }
    }
}
