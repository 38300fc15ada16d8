import TasksVision

extension MPImage {
    /// An image from a PNG or JPEG file, decoded to exactly the pixels MediaPipe's
    /// `Image.create_from_file` gives. As there, a JPEG's EXIF orientation is applied to the
    /// pixels (unless `applyingExifOrientation` is false), so results are in the image as
    /// displayed; `orientation` then turns the input further, as MediaPipe's `rotation_degrees`.
    /// Gray files give `.gray8`, RGB files `.rgb8`, files with alpha `.rgba8`.
    ///
    /// Throws `ImageIOError` naming the file when it cannot be read or decoded.
    public init(contentsOfFile path: String, orientation: ImageOrientation = .up,
                applyingExifOrientation: Bool = true) throws {
        var decoded = try ImageFile.read(path)
        if applyingExifOrientation { decoded = decoded.applyingExifOrientation() }
        let format: MPImage.PixelFormat
        switch decoded.channels {
        case 1: format = .gray8
        case 3: format = .rgb8
        case 4: format = .rgba8
        default:
            throw ImageIOError.unsupported(file: path, reason: "\(decoded.channels) channels per pixel")
        }
        try self.init(pixels: decoded.pixels, width: decoded.width, height: decoded.height, pixelFormat: format,
                      orientation: orientation)
    }
}
