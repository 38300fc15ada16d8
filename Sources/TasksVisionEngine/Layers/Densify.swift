import TasksVisionFormat

/// DENSIFY: expands a sparse constant (TFLite's CSR-per-dimension format with
/// optional blocks) into a dense tensor. Runs once, at load.
///
/// Follows the traversal of TFLite's sparsity `FormatConverter::Populate`: walk
/// the dimensions in traversal order, dense levels by count and sparse levels by
/// their segments and indices, and place values at their original coordinates.
/// Every index taken from the file is checked.
enum Densify {
    static func densify(values: ConstantData, sparsity: TFLiteModel.SparsityParameters, denseShape: [Int],
                        what: String) throws -> ConstantData {
        func bad(_ reason: String) -> EngineError { .invalidModel(model: what, reason: "DENSIFY: \(reason)") }
        let rank = denseShape.count
        let order = sparsity.traversalOrder
        let blockMap = sparsity.blockMap
        let dims = sparsity.dimensionMetadata
        let elementSize = values.type.byteSize
        guard elementSize > 0 else { throw bad("sparse tensor of type \(values.type)") }
        guard order.count == rank + blockMap.count, dims.count == order.count else {
            throw bad("traversal order of \(order.count) levels and \(dims.count) dimension entries for rank \(rank) "
                      + "with \(blockMap.count) block dimensions")
        }
        guard Set(order) == Set(0..<order.count) else { throw bad("traversal order \(order) is not a permutation") }
        var blockSize: [Int] = []
        for (i, d) in blockMap.enumerated() {
            guard d >= 0 && d < rank else { throw bad("block map entry \(d) out of range") }
            let level = rank + i
            guard let pos = order.firstIndex(of: level) else { throw bad("block level missing") }
            let s = dims[pos].denseSize
            guard s > 0 else { throw bad("block size \(s)") }
            blockSize.append(s)
        }
        let total = denseShape.reduce(1, *)
        guard total * elementSize <= 1 << 30 else { throw bad("dense shape \(denseShape) is too large") }
        var dense = [UInt8](repeating: 0, count: total * elementSize)
        var strides = [Int](repeating: 1, count: rank)
        if rank > 1 {
            for i in stride(from: rank - 2, through: 0, by: -1) { strides[i] = strides[i + 1] * denseShape[i + 1] }
        }
        var indices = [Int](repeating: 0, count: order.count)
        var source = 0
        let valueCount = values.bytes.count / elementSize

        func place() throws {
            var orig = [Int](repeating: 0, count: rank)
            for i in 0..<rank { orig[order[i]] = indices[i] }
            for i in rank..<order.count {
                let blockIndex = order[i] - rank
                guard blockIndex >= 0 && blockIndex < blockMap.count else {
                    throw bad("traversal order entry \(order[i])")
                }
                let d = blockMap[blockIndex]
                orig[d] = orig[d] * blockSize[blockIndex] + indices[i]
            }
            var flat = 0
            for i in 0..<rank {
                guard orig[i] >= 0 && orig[i] < denseShape[i] else {
                    throw bad("coordinate \(orig) outside shape \(denseShape)")
                }
                flat += orig[i] * strides[i]
            }
            guard source < valueCount else { throw bad("more coordinates than the \(valueCount) stored values") }
            for b in 0..<elementSize {
                dense[flat * elementSize + b] = values.bytes[values.bytes.startIndex + source * elementSize + b]
            }
            source += 1
        }

        func populate(level: Int, previous: Int) throws {
            if level == order.count { try place(); return }
            let d = dims[level]
            if d.format == .dense {
                guard d.denseSize >= 0 && d.denseSize <= total else { throw bad("dense size \(d.denseSize)") }
                for i in 0..<d.denseSize {
                    indices[level] = i
                    try populate(level: level + 1, previous: previous * d.denseSize + i)
                }
            } else {
                guard previous + 1 < d.arraySegments.count else {
                    throw bad("segment index \(previous) outside \(d.arraySegments.count) segments")
                }
                let lo = d.arraySegments[previous], hi = d.arraySegments[previous + 1]
                guard lo >= 0, lo <= hi, hi <= d.arrayIndices.count else {
                    throw bad("segment \(lo)..<\(hi) outside \(d.arrayIndices.count) indices")
                }
                for i in lo..<hi {
                    indices[level] = d.arrayIndices[i]
                    try populate(level: level + 1, previous: i)
                }
            }
        }
        try populate(level: 0, previous: 0)
        return ConstantData(type: values.type, bytes: dense)
    }
}
