import Foundation

/// Per-call options of an image (MediaPipe's `ImageProcessingOptions`).
public struct ImageProcessingOptions: Sendable, Equatable {
    /// The part of the displayed image to run on, normalized to [0, 1] (origin top left). Results
    /// come back in the whole image's coordinates; nil is the whole image.
    public var regionOfInterest: CGRect?
    public init(regionOfInterest: CGRect? = nil) { self.regionOfInterest = regionOfInterest }
}

/// A region of interest as whole stored pixels, and how results in it map back to the whole image.
///
/// The region is rounded to whole pixels and the task runs on exactly that crop, so a result
/// equals the cropped image's result mapped back (bit for bit where the region is pixel-aligned).
struct ImageRegion: Equatable {
    /// The crop in stored pixels: origin and size.
    var x: Int, y: Int, width: Int, height: Int
    /// The crop in the displayed image's pixels.
    var displayX: Int, displayY: Int, displayWidth: Int, displayHeight: Int
    /// The whole displayed image's size.
    var fullWidth: Int, fullHeight: Int
    /// No region was given: the whole image.
    var isWhole = false

    /// The stored-pixel region of a normalized displayed rect; throws when it is empty or outside the image.
    init(_ roi: CGRect, in image: MPImage) throws {
        let r = roi.standardized
        guard r.minX >= 0, r.minY >= 0, r.maxX <= 1, r.maxY <= 1, r.width > 0, r.height > 0,
              r.minX.isFinite, r.minY.isFinite, r.maxX.isFinite, r.maxY.isFinite else {
            throw VisionTaskError.invalidOption(
                "regionOfInterest \(roi) must lie inside [0, 1] x [0, 1] with a positive size")
        }
        let o = image.orientation
        let a = o.storedPoint(fromDisplay: (x: Float(r.minX), y: Float(r.minY)))
        let b = o.storedPoint(fromDisplay: (x: Float(r.maxX), y: Float(r.maxY)))
        let (sw, sh) = (image.pixelWidth, image.pixelHeight)
        let x0 = Int((min(a.x, b.x) * Float(sw)).rounded()), x1 = Int((max(a.x, b.x) * Float(sw)).rounded())
        let y0 = Int((min(a.y, b.y) * Float(sh)).rounded()), y1 = Int((max(a.y, b.y) * Float(sh)).rounded())
        guard x1 > x0, y1 > y0 else {
            throw VisionTaskError.invalidOption(
                "regionOfInterest \(roi) covers no whole pixel of the \(image.width)x\(image.height) image")
        }
        (x, y, width, height) = (x0, y0, x1 - x0, y1 - y0)
        // The crop's corners in the displayed image (exact: whole pixels map to whole pixels).
        let p = o.displayPoint(fromStored: (x: Float(x0) / Float(sw), y: Float(y0) / Float(sh)))
        let q = o.displayPoint(fromStored: (x: Float(x1) / Float(sw), y: Float(y1) / Float(sh)))
        let (dw, dh) = (image.width, image.height)
        displayX = Int((min(p.x, q.x) * Float(dw)).rounded())
        displayY = Int((min(p.y, q.y) * Float(dh)).rounded())
        displayWidth = Int((max(p.x, q.x) * Float(dw)).rounded()) - displayX
        displayHeight = Int((max(p.y, q.y) * Float(dh)).rounded()) - displayY
        (fullWidth, fullHeight) = (dw, dh)
    }

    /// The whole image as a region.
    init(wholeOf image: MPImage) {
        (x, y, width, height) = (0, 0, image.pixelWidth, image.pixelHeight)
        (displayX, displayY, displayWidth, displayHeight) = (0, 0, image.width, image.height)
        (fullWidth, fullHeight) = (image.width, image.height)
        isWhole = true
    }

    /// The region or the whole image.
    static func of(_ options: ImageProcessingOptions?, image: MPImage) throws -> ImageRegion? {
        guard let roi = options?.regionOfInterest else { return nil }
        return try ImageRegion(roi, in: image)
    }

    /// The crop, with the image's orientation (a copy of the region's pixels).
    func crop(_ image: MPImage) throws -> MPImage {
        let bpp = image.pixelFormat.bytesPerPixel, rowBytes = width * bpp
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        image.withBytes { src in
            pixels.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for row in 0..<height {
                    memcpy(d + row * rowBytes, s + (y + row) * image.bytesPerRow + x * bpp, rowBytes)
                }
            }
        }
        return try MPImage(pixels: pixels, width: width, height: height, pixelFormat: image.pixelFormat,
                           orientation: image.orientation)
    }

    // Mapping results of the crop (displayed crop coordinates) to the whole displayed image.

    func x(_ v: Float) -> Float { (Float(displayX) + v * Float(displayWidth)) / Float(fullWidth) }
    func y(_ v: Float) -> Float { (Float(displayY) + v * Float(displayHeight)) / Float(fullHeight) }
    /// z of a normalized landmark is on the x scale.
    func z(_ v: Float) -> Float { v * Float(displayWidth) / Float(fullWidth) }

    func landmark(_ l: NormalizedLandmark) -> NormalizedLandmark {
        var out = l
        out.x = x(l.x); out.y = y(l.y); out.z = z(l.z)
        return out
    }

    func landmarks(_ hands: [[NormalizedLandmark]]) -> [[NormalizedLandmark]] { hands.map { $0.map(landmark) } }

    func detection(_ d: Detection) -> Detection {
        var out = d
        out.boundingBox = d.boundingBox.offsetBy(dx: CGFloat(displayX), dy: CGFloat(displayY))
        out.keypoints = d.keypoints?.map { k in
            var m = k
            m.location = CGPoint(x: CGFloat(x(Float(k.location.x))), y: CGFloat(y(Float(k.location.y))))
            return m
        }
        return out
    }

    func rect(_ r: NormalizedRect) -> NormalizedRect {
        NormalizedRect(xCenter: x(r.xCenter), yCenter: y(r.yCenter),
                       width: r.width * Float(displayWidth) / Float(fullWidth),
                       height: r.height * Float(displayHeight) / Float(fullHeight), rotation: r.rotation)
    }

    /// A displayed mask of the crop placed in a mask of the whole displayed image: 0 outside a float
    /// mask, 255 (no category) outside a byte mask.
    func mask(_ m: Mask) -> Mask {
        func place<T>(_ values: [T], _ fill: T) -> [T] {
            var out = [T](repeating: fill, count: fullWidth * fullHeight)
            for row in 0..<max(0, min(m.height, fullHeight - displayY)) {
                for col in 0..<max(0, min(m.width, fullWidth - displayX)) {
                    out[(displayY + row) * fullWidth + displayX + col] = values[row * m.width + col]
                }
            }
            return out
        }
        return m.mapStorage(width: fullWidth, height: fullHeight, { place($0, 0) }, { place($0, 255) })
    }

    /// A tracked rect, normalized to this region's stored pixels, normalized to `other`'s instead.
    func reframe(_ r: NormalizedRect, to other: ImageRegion) -> NormalizedRect {
        let cx = Float(x) + r.xCenter * Float(width), cy = Float(y) + r.yCenter * Float(height)
        return NormalizedRect(xCenter: (cx - Float(other.x)) / Float(other.width),
                              yCenter: (cy - Float(other.y)) / Float(other.height),
                              width: r.width * Float(width) / Float(other.width),
                              height: r.height * Float(height) / Float(other.height), rotation: r.rotation)
    }

    /// Same crop in stored pixels.
    func sameCrop(_ other: ImageRegion) -> Bool {
        (x, y, width, height) == (other.x, other.y, other.width, other.height)
    }
}

/// A pipeline that carries rects from frame to frame, normalized to the frame it ran on.
protocol RegionFramedPipeline: AnyObject {
    /// The carried rects of `from`'s frame, normalized to `to`'s; smoothing restarts.
    func reframe(from: ImageRegion, to: ImageRegion)
}

/// Runs a task's pipeline on the region of interest of one call.
struct RegionRunner {
    /// The frame the pipeline's carried state is normalized to.
    private(set) var last: ImageRegion?

    /// Runs `body` on the region's crop (or the whole image) and maps its result back with `map`.
    /// When the region moves between frames, the pipeline's tracked rects are reframed; frames
    /// without a region leave them as MediaPipe does, whatever the image size.
    mutating func run<R>(_ image: MPImage, _ options: ImageProcessingOptions?, pipeline: RegionFramedPipeline?,
                         _ body: (MPImage) -> R, map: (R, ImageRegion) -> R) throws -> R {
        let region = try ImageRegion.of(options, image: image)
        let frame = region ?? ImageRegion(wholeOf: image)
        if let pipeline, let last, !(last.isWhole && frame.isWhole), !last.sameCrop(frame) {
            pipeline.reframe(from: last, to: frame)
        }
        last = frame
        guard let region else { return body(image) }
        return map(body(try region.crop(image)), region)
    }
}
