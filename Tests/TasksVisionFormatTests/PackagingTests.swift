import Foundation
import XCTest

// What the package promises Apple platforms and its users' builds, checked on any machine: the manifest as SwiftPM
// reads it (no unsafe flag reaches an Apple platform build), and the source (Apple-only code fenced off).
final class PackagingTests: XCTestCase {
    static let applePlatforms: Set<String> = ["macos", "ios", "tvos", "watchos", "visionos", "maccatalyst", "driverkit"]

    #if os(Linux) || os(macOS)
    /// `swift package dump-package` of this package, with `environment` added, in a scratch folder of its own
    /// (the test run holds the package's `.build`).
    func dumpPackage(_ environment: [String: String] = [:]) throws -> [String: Any] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tasksvision-dump-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", FormatTestPaths.root,
                             "--scratch-path", scratch.path, "dump-package"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "swift package dump-package failed")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Every unsafe-flags setting of the manifest: target name, flags and the platforms it is limited to (nil: all).
    func unsafeSettings(_ manifest: [String: Any]) -> [(target: String, flags: [String], platforms: [String]?)] {
        var found: [(String, [String], [String]?)] = []
        for target in manifest["targets"] as? [[String: Any]] ?? [] {
            for setting in target["settings"] as? [[String: Any]] ?? [] {
                guard let kind = setting["kind"] as? [String: Any],
                      let unsafe = kind["unsafeFlags"] as? [String: Any] else { continue }
                let condition = setting["condition"] as? [String: Any]
                found.append((target["name"] as? String ?? "?", unsafe["_0"] as? [String] ?? [],
                              condition?["platformNames"] as? [String]))
            }
        }
        return found
    }

    func testNoUnsafeFlagReachesAnApplePlatformBuild() throws {
        let manifest = try dumpPackage()
        let settings = unsafeSettings(manifest)
        #if os(Linux) && arch(x86_64)
        // The manifest as Linux x86-64 reads it does carry them (the kernels' -target-cpu, -parse-stdlib).
        XCTAssertTrue(settings.contains { $0.flags.contains("-parse-stdlib") }, "\(settings)")
        XCTAssertTrue(settings.contains { $0.flags.contains("-target-cpu") }, "\(settings)")
        #endif
        for setting in settings {
            let platforms = try XCTUnwrap(setting.platforms, "\(setting.target): \(setting.flags) on every platform")
            XCTAssertFalse(platforms.isEmpty, "\(setting.target): \(setting.flags) on every platform")
            XCTAssertTrue(Self.applePlatforms.isDisjoint(with: platforms),
                          "\(setting.target): \(setting.flags) reaches \(platforms)")
        }
        // The manifest as a Mac reads it (TASKSVISION_NO_UNSAFE_FLAGS gives the same) declares none at all.
        let mac = try dumpPackage(["TASKSVISION_NO_UNSAFE_FLAGS": "1"])
        XCTAssertEqual(unsafeSettings(mac).map(\.target), [])
        let text = try String(contentsOfFile: FormatTestPaths.root + "/Package.swift", encoding: .utf8)
        XCTAssertTrue(text.contains("#if canImport(Darwin)\nlet unsafeFlagsAllowed = false\n#else"),
                      "Package.swift: a Mac's manifest must set unsafeFlagsAllowed to false")
        // The declared minimums (README.md and the manifest's comment give the reasons).
        let platforms = (manifest["platforms"] as? [[String: Any]] ?? []).map {
            "\($0["platformName"] as? String ?? "?") \($0["version"] as? String ?? "?")"
        }
        XCTAssertEqual(platforms, ["macos 12.0", "ios 15.0", "tvos 15.0", "watchos 8.0", "visionos 1.0"])
    }
    #endif

    // MARK: Apple-only code

    /// The files with Apple-only code, by name (moves keep them): what only Apple's SDKs have beyond the C
    /// library, which many files import as Darwin after Glibc (`import Darwin` is checked for its fence only).
    /// A new one must be added here, and the test checks its code is fenced.
    static let appleOnlyFiles: Set<String> = ["MPImage+Apple.swift", "VisionImage+Apple.swift",
                                              "SegmentationMask+Apple.swift", "PlatformBLAS.swift", "CPUFeatures.swift"]

    /// What only Apple's SDKs have: their modules, and the calls and types the Apple-only code uses.
    static let appleOnlyTokens = [
        "import Accelerate", "import CoreGraphics", "import CoreVideo", "import CoreMedia", "import UIKit",
        "import AVFoundation", "import AppKit", "import Darwin",
        "sysctlbyname", "CGImage", "CGContext", "CGColorSpace", "CVPixelBuffer", "kCVPixelFormatType", "UIImage",
        "CMSampleBuffer", "NSImage", "vDSP_", "vImage", "BNNS",
    ]

    /// A condition that holds on Apple platforms only.
    static func isAppleOnly(_ condition: String) -> Bool {
        let apple = ["canImport(Darwin)", "canImport(Accelerate)", "canImport(CoreGraphics)", "canImport(CoreVideo)",
                     "canImport(CoreMedia)", "canImport(AVFoundation)", "canImport(UIKit)", "canImport(AppKit)",
                     "os(macOS)", "os(iOS)", "os(tvOS)", "os(watchOS)", "os(visionOS)",
                     "targetEnvironment(macCatalyst)"]
        let alternatives = condition.components(separatedBy: "||").map { $0.trimmingCharacters(in: .whitespaces) }
        // Every alternative Apple-only (a conjunction is as narrow as its Apple-only part).
        return alternatives.allSatisfy { alternative in
            alternative.components(separatedBy: "&&").contains {
                apple.contains($0.trimmingCharacters(in: .whitespaces))
            }
        }
    }

    /// Lines (1-based) of `source` with an Apple-only token outside an Apple-only `#if`/`#elseif` branch.
    static func unfencedLines(_ source: String) -> [Int] {
        var stack: [Bool] = []   // per open #if: whether the current branch is Apple-only
        var unfenced: [Int] = []
        for (index, raw) in source.components(separatedBy: "\n").enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if ") {
                stack.append(isAppleOnly(String(line.dropFirst(4))))
            } else if line.hasPrefix("#elseif "), !stack.isEmpty {
                stack[stack.count - 1] = isAppleOnly(String(line.dropFirst(8)))
            } else if line.hasPrefix("#else"), !stack.isEmpty {
                stack[stack.count - 1] = false
            } else if line.hasPrefix("#endif"), !stack.isEmpty {
                stack.removeLast()
            } else if !line.hasPrefix("//"), appleOnlyTokens.contains(where: line.contains), !stack.contains(true) {
                unfenced.append(index + 1)
            }
        }
        return unfenced
    }

    func testAppleOnlyCodeIsFenced() throws {
        let root = FormatTestPaths.root
        var withAppleCode = Set<String>()
        var wholeAppleFiles: [String] = []
        for folder in ["Sources", "Benchmarks"] {
            let enumerator = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let file = enumerator?.nextObject() as? String {
                guard file.hasSuffix(".swift") else { continue }
                let path = folder + "/" + file
                if path.hasSuffix("+Apple.swift") { wholeAppleFiles.append(root + "/" + path) }
                let source = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                let code = source.components(separatedBy: "\n").filter {
                    !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                }
                XCTAssertEqual(Self.unfencedLines(source), [], "\(path): Apple-only code outside an Apple-only #if")
                let beyondLibC = Self.appleOnlyTokens.filter { $0 != "import Darwin" }
                if code.contains(where: { line in beyondLibC.contains(where: line.contains) }) {
                    withAppleCode.insert((path as NSString).lastPathComponent)
                }
            }
        }
        XCTAssertEqual(withAppleCode.subtracting(Self.appleOnlyFiles).sorted(), [],
                       "files with Apple-only code that PackagingTests.appleOnlyFiles does not list")
        XCTAssertEqual(Self.appleOnlyFiles.subtracting(withAppleCode).sorted(), [],
                       "files PackagingTests.appleOnlyFiles lists that have no Apple-only code")
        // The wholly Apple-only files (`...+Apple.swift`) have no line outside their fences but comments.
        XCTAssertEqual(wholeAppleFiles.map { ($0 as NSString).lastPathComponent }.sorted(),
                       ["MPImage+Apple.swift", "SegmentationMask+Apple.swift", "VisionImage+Apple.swift"])
        for file in wholeAppleFiles {
            let name = (file as NSString).lastPathComponent
            var depth = 0
            for line in try String(contentsOfFile: file, encoding: .utf8).components(separatedBy: "\n")
                .map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("#if ") {
                    if depth == 0 { XCTAssertTrue(Self.isAppleOnly(String(line.dropFirst(4))), "\(name): \(line)") }
                    depth += 1
                } else if line.hasPrefix("#endif") {
                    depth -= 1
                } else if depth == 0 {
                    XCTAssertTrue(line.isEmpty || line.hasPrefix("//"), "\(name): \(line)")
                }
            }
        }
    }

    func testFenceReader() {
        let glibcThenDarwin = "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif"
        XCTAssertEqual(Self.unfencedLines(glibcThenDarwin), [])
        XCTAssertEqual(Self.unfencedLines("#if canImport(Glibc)\nimport Glibc\n#else\nimport Darwin\n#endif"), [4])
        XCTAssertEqual(Self.unfencedLines("import UIKit\n#if os(iOS)\nlet i: UIImage? = nil\n#endif"), [1])
        XCTAssertEqual(Self.unfencedLines("#if os(Linux) || os(macOS)\nimport Darwin\n#endif"), [2])
        let nested = "#if canImport(UIKit)\n#if DEBUG\nlet i: UIImage? = nil\n#endif\n#endif"
        XCTAssertEqual(Self.unfencedLines(nested), [])
    }
}
