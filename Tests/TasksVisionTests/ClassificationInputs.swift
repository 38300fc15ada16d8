import Foundation
@testable import TasksVision
import TasksVisionImageIO
import TestFixtureSupport

/// The inputs of the classification fixtures (TestFixtureSupport decodes the fixtures; the images need TasksVision).
extension ClassificationFixtures {
    /// The input as the reference script gave it to MediaPipe, with the orientation of its rotation.
    static func image(_ file: String, sequence: String? = nil, rotation: Int = 0, turned: Bool = false) throws
        -> MPImage {
        let path: String
        if let sequence {
            path = Paths.sequences + "/" + sequence + "/" + file
        } else if file.hasPrefix("google/") {
            path = Paths.shared + "/testdata/" + file
        } else {
            path = Paths.images + "/" + file
        }
        // JPEGs decode as MediaPipe's Image.create_from_file decodes them (the reference's loader for them).
        let image = file.hasSuffix(".jpg") ? try MPImage(contentsOfFile: path) : try TestImages.load(path)
        return turned ? try turnedClockwise(image).withOrientation(orientation(forRotation: rotation))
            : image.withOrientation(orientation(forRotation: rotation))
    }

    /// The pixels turned 90 degrees clockwise (np.rot90(k=-1)).
    static func turnedClockwise(_ image: MPImage) throws -> MPImage {
        let w = image.pixelWidth, h = image.pixelHeight, n = image.pixelFormat.bytesPerPixel
        var out = [UInt8](repeating: 0, count: w * h * n)
        image.withBytes { raw in
            guard let src = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<w {
                for x in 0..<h {
                    let from = (h - 1 - x) * image.bytesPerRow + y * n, to = (y * h + x) * n
                    for c in 0..<n { out[to + c] = src[from + c] }
                }
            }
        }
        return try MPImage(pixels: out, width: h, height: w, pixelFormat: image.pixelFormat)
    }

    /// MediaPipe's region (RectF in the stored pixels: left, top, right, bottom) as ours: normalized to the
    /// image as displayed.
    static func displayedRegion(_ roi: [Double], rotation: Int) -> CGRect {
        let o = orientation(forRotation: rotation)
        let a = o.displayPoint(fromStored: (x: Float(roi[0]), y: Float(roi[1])))
        let b = o.displayPoint(fromStored: (x: Float(roi[2]), y: Float(roi[3])))
        return CGRect(x: Double(min(a.x, b.x)), y: Double(min(a.y, b.y)), width: Double(abs(b.x - a.x)),
                      height: Double(abs(b.y - a.y)))
    }
}

/// The largest difference of two score lists and how many are bit-identical.
struct ScoreComparison {
    var compared = 0, identical = 0
    var maxError: Float = 0

    mutating func add(_ ours: [Float], _ theirs: [Float]) {
        for (a, b) in zip(ours, theirs) {
            compared += 1
            if a.bitPattern == b.bitPattern { identical += 1 }
            maxError = max(maxError, abs(a - b))
        }
    }
}
