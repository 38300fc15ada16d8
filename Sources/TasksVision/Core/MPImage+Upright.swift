import Foundation

extension MPImage {
    /// The displayed image as stored pixels (orientation `.up`): the pixels turned and mirrored as the
    /// orientation says, a copy in the same pixel format; the image itself when it is already upright.
    /// A task that runs on the displayed picture (the holistic landmarker) gives, on an oriented image,
    /// exactly its results on the turned pixels.
    func upright() -> MPImage {
        let o = orientation
        guard o != .up else { return self }
        let (dw, dh) = (width, height)
        let bpp = pixelFormat.bytesPerPixel
        var out = [UInt8](repeating: 0, count: dw * dh * bpp)
        let degrees = o.rotationDegrees, mirrored = o.isMirrored
        withBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let d = dst.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for dy in 0..<dh {
                    for dx in 0..<dw {
                        // `storedPoint(fromDisplay:)` on pixel centres: first undo the mirror, then the turn.
                        let mx = mirrored ? dw - 1 - dx : dx
                        let (sx, sy): (Int, Int)
                        switch degrees {
                        case 90: (sx, sy) = (dy, dw - 1 - mx)
                        case 180: (sx, sy) = (dw - 1 - mx, dh - 1 - dy)
                        case 270: (sx, sy) = (dh - 1 - dy, mx)
                        default: (sx, sy) = (mx, dy)
                        }
                        let from = s + sy * bytesPerRow + sx * bpp, to = d + (dy * dw + dx) * bpp
                        for c in 0..<bpp { to[c] = from[c] }
                    }
                }
            }
        }
        return MPImage(pixelWidth: dw, pixelHeight: dh, pixelFormat: pixelFormat, bytesPerRow: dw * bpp,
                       orientation: .up, storage: .owned(out))
    }
}
