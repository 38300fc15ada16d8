import TasksVisionEngine
import TestBLASKernels
import XCTest

/// The test process runs on the OpenBLAS kernels the `vision` executable runs on (the
/// TestBLASKernels constructor re-launches it as `vision` re-launches itself), so parity
/// figures measured here are the command line's.
final class BLASKernelChoiceTests: XCTestCase {
    func testTestsRunOnTheExecutablesKernels() {
        print("OpenBLAS kernels: \(BLASConfiguration.coreName)"
              + "\(testBLASKernelsRelaunched() == 1 ? " (test process re-launched with OPENBLAS_CORETYPE)" : "")")
        XCTAssertNil(BLASConfiguration.preferredCoreType(),
                     "OpenBLAS runs its generic \(BLASConfiguration.coreName) kernels where the executables would "
                     + "re-launch on better ones")
    }

    /// The AVX-512 kernels fuse saxpy's multiply-adds at every length (what lets depthwise layers
    /// run through it, `PlaneGeometry`); the probe must see that there.
    func testAxpyProbe() {
        print("OpenBLAS saxpy fused: \(BLASConfiguration.axpyIsFused)")
        if BLASConfiguration.coreName == "SkylakeX" { XCTAssertTrue(BLASConfiguration.axpyIsFused) }
    }
}
