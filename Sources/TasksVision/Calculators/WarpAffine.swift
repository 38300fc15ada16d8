/// MediaPipe's `WarpAffineCalculator` on a CPU float image (warp_affine_calculator.cc with
/// affine_transformation_runner_opencv.cc): warps an image by a 4x4 matrix on normalized
/// coordinates that maps output positions to input positions, into an image of OUTPUT_SIZE.
///
/// The runner (in its `kOpenCvCompatibility` mode) turns the matrix into absolute pixels as
/// `scale(input size) * matrix * scale(1 / output size)` in `cv::Matx44f` float arithmetic, keeps
/// its 2x3 affine part and calls `cv::warpAffine(..., INTER_LINEAR | WARP_INVERSE_MAP, border)`;
/// the pose graph asks for BORDER_ZERO (`cv::BORDER_CONSTANT`, value 0).
enum WarpAffine {
    /// The 2x3 matrix (row-major) the runner passes OpenCV: output pixel to input pixel.
    static func absoluteMatrix(_ m: [Float], inputWidth: Int, inputHeight: Int, outputWidth: Int,
                               outputHeight: Int) -> [Float] {
        // Matx44f products: each element a float sum from 0 over k of a(i,k) * b(k,j). Both outer
        // matrices are diagonal, so each element is one float product (the other terms add zeros).
        let scaleIn: [Float] = [1 * Float(inputWidth), 1 * Float(inputHeight), 1, 1]
        let scaleOut: [Float] = [1 / Float(outputWidth), 1 / Float(outputHeight), 1, 1]
        func element(_ i: Int, _ j: Int) -> Float { (scaleIn[i] * m[i * 4 + j]) * scaleOut[j] }
        return [element(0, 0), element(0, 1), element(0, 3), element(1, 0), element(1, 1), element(1, 3)]
    }

    /// The warped image (`outputWidth * outputHeight` values), zero where no input pixel reaches.
    static func run(_ image: [Float], width: Int, height: Int, matrix: [Float], outputWidth: Int,
                    outputHeight: Int) -> [Float] {
        let m = absoluteMatrix(matrix, inputWidth: width, inputHeight: height, outputWidth: outputWidth,
                               outputHeight: outputHeight)
        return MaskWarp.warpAffine(image, width: width, height: height, inverseMatrix: m, outputWidth: outputWidth,
                                   outputHeight: outputHeight)
    }
}
