/// `vision --version`.
enum VisionVersion {
    /// The package's version (Package.swift's consumers pin this tag).
    static let version = "0.1.0"
    static var line: String { "vision \(version) (TasksVision)" }
}
