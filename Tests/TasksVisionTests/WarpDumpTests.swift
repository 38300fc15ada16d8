import Foundation
@testable import TasksVision
import TasksVisionImageIO
import XCTest

final class WarpDumpTests: XCTestCase {
    func testDumpWarp() throws {
        guard let spec = ProcessInfo.processInfo.environment["WARP_DUMP"] else { return }
        let parts = spec.split(separator: ",").map(String.init)  // file,rotation,size
        let image = try TestImages.load(Paths.images + "/" + parts[0], orientation: orientation(forRotation: Int(parts[1])!))
        let size = Int(parts[2])!
        var roi = ImageToTensor.fullImageRoi(image)
        _ = ImageToTensor.padRoi(&roi, tensorWidth: size, tensorHeight: size)
        let px = ImageToTensor.warp(image, roi: roi, width: size, height: size, border: .zero)
        try Data(px).write(to: URL(fileURLWithPath: "/tmp/warp_ours.bin"))
        print("ROI", roi)
    }
}

final class MatrixDumpTests: XCTestCase {
    func testDumpMatrix() throws {
        guard ProcessInfo.processInfo.environment["MATRIX_DUMP"] != nil else { return }
        let src: [(Float, Float)] = [(513, 513), (-1.5706097e-14, 513), (1.5706097e-14, 0), (513, 0)]
        let dst: [(Float, Float)] = [(0, 128), (0, 0), (128, 0), (128, 128)]
        let m = PerspectiveTransform.perspective(from: src, to: dst)!
        print("FWD", m.map { String(format: "%.17g", $0) })
        print("INV", PerspectiveTransform.invert3x3(m)!.map { String(format: "%.17g", $0) })
    }
}
