import Foundation
import TasksVisionFormat

/// Where a task finds its models: a `.task` bundle (members looked up by their official
/// names, nested bundles included) or, for convenience, a folder holding the same files.
struct ModelSource {
    enum Storage { case bundle(TaskBundle), folder(String) }
    let storage: Storage
    let name: String

    init(path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            storage = .folder(path)
        } else {
            storage = .bundle(try TaskBundle(path: path))
        }
        name = path
    }

    private init(storage: Storage, name: String) { self.storage = storage; self.name = name }

    func contains(_ member: String) -> Bool {
        switch storage {
        case .bundle(let b): return b.contains(member)
        case .folder(let d): return FileManager.default.fileExists(atPath: d + "/" + member)
        }
    }

    func model(_ member: String) throws -> TFLiteModel {
        switch storage {
        case .bundle(let b): return try b.model(member)
        case .folder(let d): return try ModelAsset.loadModel(d + "/" + member)
        }
    }

    /// Throws, naming the first member of `layout` this source lacks and what the bundle holds
    /// (`holds`, or the layout's own account).
    func require(_ layout: TaskBundleLayout, holds: String? = nil) throws {
        if let member = layout.missingMember(in: contains) {
            throw VisionTaskError.invalidModel("\(name) has no \(member) (\(holds ?? layout.holds))")
        }
    }

    /// The nested bundle `member` when this source holds one, else the source itself (which then
    /// holds that bundle's members directly).
    func nestedIfPresent(_ member: String) throws -> ModelSource {
        contains(member) ? try nested(member) : self
    }

    /// A nested bundle, or, in a folder, the folder itself (its files stand for the nested bundle's).
    func nested(_ member: String) throws -> ModelSource {
        switch storage {
        case .bundle(let b): return ModelSource(storage: .bundle(try b.bundle(member)), name: name + ":" + member)
        case .folder(let d):
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: d + "/" + member, isDirectory: &isDirectory) {
                return isDirectory.boolValue ? ModelSource(storage: .folder(d + "/" + member), name: d + "/" + member)
                    : ModelSource(storage: .bundle(try TaskBundle(path: d + "/" + member)), name: d + "/" + member)
            }
            return self
        }
    }
}
