import Dispatch
import TasksVision

/// The image-to-tensor warp every task runs first (MediaPipe's CPU crop, OpenCV's `warpPerspective`), alone.
enum WarpBenchmark {
    /// Times each `SRCWxSRCH:DSTWxDSTH` shape: the whole RGB frame to the tensor size, and a turned crop of a third
    /// of its width (a hand or face crop).
    static func run(_ shapes: [String], runs: Int) {
        for shape in shapes {
            let sizes = shape.split(separator: ":").map { $0.split(separator: "x").compactMap { Int($0) } }
            guard sizes.count == 2, sizes.allSatisfy({ $0.count == 2 && $0[0] > 0 && $0[1] > 0 }),
                  let image = try? MPImage(pixels: (0..<(sizes[0][0] * sizes[0][1] * 3)).map {
                      UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11)
                  }, width: sizes[0][0], height: sizes[0][1], pixelFormat: .rgb8) else {
                fail("--warp takes SRCWxSRCH:DSTWxDSTH (e.g. 640x480:224x224), not \(shape)")
            }
            let (sw, sh, dw, dh) = (Float(sizes[0][0]), Float(sizes[0][1]), sizes[1][0], sizes[1][1])
            let rois = [("whole", RotatedRect(centerX: sw / 2, centerY: sh / 2, width: sw, height: sh, rotation: 0)),
                        ("turned crop", RotatedRect(centerX: sw / 2, centerY: sh / 2, width: sw / 3, height: sw / 3,
                                                    rotation: 0.5))]
            for (name, roi) in rois {
                var times: [Double] = []
                for _ in 0..<max(runs, 20) {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    _ = ImageToTensor.warp(image, roi: roi, width: dw, height: dh, border: .replicate)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
                }
                times.sort()
                print("WARP \(shape) \(name): median \(formatted(times[times.count / 2])) us, "
                      + "\(formatted(times[times.count / 2] * 1e3 / Double(dw * dh))) ns a pixel")
            }
        }
    }

    static func formatted(_ v: Double) -> String { String(Double(Int(v * 100)) / 100) }
}
