import Foundation

/// MediaPipe's face geometry pipeline (face_geometry/libs/geometry_pipeline.cc) as the face landmarker graph
/// configures it (face_geometry_from_landmarks_graph.cc): a perspective camera of 63 degrees vertical field of view,
/// near plane 1, far plane 10000, the origin at the top-left corner, landmarks from the face landmark pipeline (the
/// first 468 of the 478: no irises). From one face's landmarks it estimates the pose of the canonical face mesh in
/// metric space: two Procrustes fits to find the scale of the face's depth, then the transform from the canonical
/// mesh to the face.
///
/// `transformationMatrix` is that 4x4 pose transform, ROW-MAJOR: element (row r, column c) at index 4 r + c, the
/// translation in elements 3, 7 and 11 (MediaPipe's Python API gives this matrix; its iOS API reads the same
/// column-major data as row-major, so it shows the transpose).
struct FaceGeometryPipeline {
    /// `FaceGeometryEnvGeneratorCalculator`'s environment in the face landmarker.
    static let verticalFieldOfViewDegrees: Float = 63
    static let nearPlane: Float = 1
    static let farPlane: Float = 10000
    /// The landmarks the canonical mesh has (the face landmarks without the 10 iris points).
    static let meshLandmarks = 468

    let metadata: GeometryPipelineMetadata
    /// The canonical mesh's vertex positions, three rows (x, y, z).
    let canonicalLandmarks: [[Float]]
    /// The square roots of the Procrustes weights, one per canonical vertex (zero where none is given).
    let sqrtWeights: [Float]

    /// The pipeline of a geometry_pipeline_metadata_landmarks.binarypb file; a corrupt or truncated file throws an
    /// `invalidModel` error naming what is wrong.
    init(metadata bytes: [UInt8]) throws {
        do {
            metadata = try GeometryPipelineMetadata(bytes: bytes)
        } catch let error as GeometryPipelineMetadataError {
            throw VisionTaskError.invalidModel("geometry_pipeline_metadata_landmarks.binarypb: \(error)")
        }
        guard metadata.vertexCount == Self.meshLandmarks else {
            throw VisionTaskError.invalidModel("geometry_pipeline_metadata_landmarks.binarypb: the canonical mesh has "
                                               + "\(metadata.vertexCount) vertices, not the 468 face landmarks")
        }
        if metadata.inputSource != .faceLandmarkPipeline {
            throw VisionTaskError.invalidModel("geometry_pipeline_metadata_landmarks.binarypb: input source "
                                               + "FACE_DETECTION_PIPELINE is not the face landmarker's")
        }
        let v = metadata.vertexBuffer, size = GeometryPipelineMetadata.vertexSize
        canonicalLandmarks = (0..<3).map { r in (0..<Self.meshLandmarks).map { v[size * $0 + r] } }
        var weights = [Float](repeating: 0, count: Self.meshLandmarks)
        for (id, weight) in metadata.landmarkWeights { weights[id] = weight }
        sqrtWeights = weights.map { $0.squareRoot() }
        // The solver's own checks on the weights alone (ValidatePointWeights).
        guard EigenArithmetic.rowSum(weights) > ProcrustesSolver.absoluteErrorEps else {
            throw VisionTaskError.invalidModel("geometry_pipeline_metadata_landmarks.binarypb: the Procrustes "
                                               + "weights add up to nothing")
        }
    }

    /// The canonical mesh's triangles (vertex indices, three per triangle).
    var triangles: [UInt32] { metadata.indexBuffer }

    /// The perspective camera's frustum at the near plane for a frame (`PerspectiveCameraFrustum`).
    struct Frustum {
        let left: Float, right: Float, bottom: Float, top: Float, near: Float
        init(width: Int, height: Int) {
            let degreesToRadians = Float(3.14159265358979323846) / 180
            // std::tan(float) correctly rounded (MediaPipe links LLVM's libc), through double.
            let angle = 0.5 * degreesToRadians * FaceGeometryPipeline.verticalFieldOfViewDegrees
            let heightAtNear = 2 * FaceGeometryPipeline.nearPlane * Float(tan(Double(angle)))
            let widthAtNear = Float(width) * heightAtNear / Float(height)
            left = -0.5 * widthAtNear; right = 0.5 * widthAtNear
            bottom = -0.5 * heightAtNear; top = 0.5 * heightAtNear
            near = FaceGeometryPipeline.nearPlane
        }
    }

    /// Whether MediaPipe skips the face (`IsScreenLandmarkListTooCompact`: every landmark within 1e-3 of their
    /// running mean).
    static func isTooCompact(_ landmarks: ArraySlice<NormalizedLandmark>) -> Bool {
        var meanX: Float = 0, meanY: Float = 0
        for (i, p) in landmarks.enumerated() {
            meanX += (p.x - meanX) / Float(i + 1)
            meanY += (p.y - meanY) / Float(i + 1)
        }
        var maxSquared: Float = 0
        for p in landmarks {
            let dx = p.x - meanX, dy = p.y - meanY
            maxSquared = max(maxSquared, dx * dx + dy * dy)
        }
        return maxSquared.squareRoot() <= 1e-3
    }

    /// The face's pose transform (16 floats, row-major), or nil where MediaPipe gives no geometry for the face:
    /// fewer than 468 landmarks, landmarks all in one spot, a frame without area, or a fit the solver refuses.
    func transformationMatrix(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> [Float]? {
        guard landmarks.count >= Self.meshLandmarks, imageWidth > 0, imageHeight > 0 else { return nil }
        let face = landmarks[0..<Self.meshLandmarks]
        guard !Self.isTooCompact(face) else { return nil }
        return try? convert(face, Frustum(width: imageWidth, height: imageHeight))
    }

    /// `ScreenToMetricSpaceConverter::Convert` up to the pose transform.
    func convert(_ face: ArraySlice<NormalizedLandmark>, _ pcf: Frustum) throws -> [Float] {
        var screen = [face.map(\.x), face.map(\.y), face.map(\.z)]
        projectXY(pcf, &screen)
        let depthOffset = EigenArithmetic.rowSum(screen[2]) / Float(screen[2].count)
        var intermediate = screen
        changeHandedness(&intermediate)
        let firstScale = try estimateScale(intermediate)
        intermediate = screen
        moveAndRescaleZ(pcf, depthOffset, firstScale, &intermediate)
        unprojectXY(pcf, &intermediate)
        changeHandedness(&intermediate)
        let secondScale = try estimateScale(intermediate)
        let totalScale = firstScale * secondScale
        moveAndRescaleZ(pcf, depthOffset, totalScale, &screen)
        unprojectXY(pcf, &screen)
        changeHandedness(&screen)
        return try ProcrustesSolver.solve(sources: canonicalLandmarks, targets: screen, sqrtWeights: sqrtWeights)
    }

    private func projectXY(_ pcf: Frustum, _ p: inout [[Float]]) {
        let xScale = pcf.right - pcf.left, yScale = pcf.top - pcf.bottom
        for i in p[0].indices {
            p[1][i] = 1 - p[1][i]  // TOP_LEFT_CORNER
            p[0][i] = p[0][i] * xScale + pcf.left
            p[1][i] = p[1][i] * yScale + pcf.bottom
            p[2][i] = p[2][i] * xScale + 0
        }
    }

    /// The first column's norm of the canonical-to-face transform (`EstimateScale`).
    private func estimateScale(_ p: [[Float]]) throws -> Float {
        let m = try ProcrustesSolver.solve(sources: canonicalLandmarks, targets: p, sqrtWeights: sqrtWeights)
        return EigenArithmetic.sum4([m[0] * m[0], m[4] * m[4], m[8] * m[8], m[12] * m[12]]).squareRoot()
    }

    private func moveAndRescaleZ(_ pcf: Frustum, _ depthOffset: Float, _ scale: Float, _ p: inout [[Float]]) {
        for i in p[2].indices { p[2][i] = (p[2][i] - depthOffset + pcf.near) / scale }
    }

    private func unprojectXY(_ pcf: Frustum, _ p: inout [[Float]]) {
        for i in p[0].indices {
            p[0][i] = p[0][i] * p[2][i] / pcf.near
            p[1][i] = p[1][i] * p[2][i] / pcf.near
        }
    }

    private func changeHandedness(_ p: inout [[Float]]) {
        for i in p[2].indices { p[2][i] *= -1 }
    }
}
