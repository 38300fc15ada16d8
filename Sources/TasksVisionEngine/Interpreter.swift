import Dispatch
import TasksVisionFormat
@_exported import TasksVisionKernels

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs one TFLite model on the engine: an execution plan built once at load,
/// with weights converted, ops fused and every activation placed in one arena.
/// `invoke()` allocates nothing.
///
/// One instance is for one thread at a time; create one per thread to run
/// concurrently (instances share nothing mutable).
public final class Interpreter {
    public struct Options: Sendable {
        /// Worker threads used inside one inference (1 = the calling thread only).
        public var threads: Int
        /// The microkernel set; nil takes `TASKSVISION_KERNELS` when set, else the fastest set
        /// the CPU supports (`KernelSet.best()`). Asking for a set the CPU cannot run throws.
        public var kernels: KernelSet?
        /// Whether an inverted-residual block (expansion, depthwise, projection) runs interleaved,
        /// tile by tile, instead of layer after layer; nil takes the set's default: on the FMA
        /// sets layer after layer (each layer's whole-map GEMM reuses its packed weights across
        /// all rows, which on a 1 MB L2 outweighs keeping the expanded map in cache: the hand
        /// landmark model 8% faster on Zen 5), on the portable set interleaved. Results are the
        /// same bits either way.
        public var interleavesBlocks: Bool?
        /// Whether a MEAN or SUM whose reduced axes are followed only by axes of size 1 sums each output as one
        /// contiguous run (XNNPACK's `f32-rsum` order), as the XNNPACK inside MediaPipe 1.2.3 does (it drops axes of
        /// size 1 first), rather than row by row (`f32-rdsum`), as ai-edge-litert 2.3.0's does. The blendshapes
        /// model's second MEAN ([1, 146, 1] over axis 1) is the one such reduction in the models here.
        public var reducesOverUnitAxesContiguously = false
        /// Activation memory shared with other interpreters run one after another (`SharedArena`); nil: an arena
        /// of this interpreter's own.
        public var sharedArena: SharedArena?
        /// The processor whose XNNPACK sums to follow, for tests (its flags limited to this one's:
        /// `CPUFeatures.running(on:)`); nil: this one (`CPUFeatures.current`).
        var processor: CPUFeatures?
        public init(threads: Int = 1, kernels: KernelSet? = nil, interleavesBlocks: Bool? = nil) {
            self.threads = threads
            self.kernels = kernels
            self.interleavesBlocks = interleavesBlocks
        }
    }

    /// Per-op-type time and work, filled by `invoke(profile:)`.
    public struct OpProfile: Sendable {
        public var kind: String
        public var count: Int
        public var seconds: Double
        public var flops: Double
    }

    public let modelName: String
    public let inputs: [TensorDescription]
    public let outputs: [TensorDescription]
    public let options: Options
    /// The kernel set this interpreter runs on.
    public let kernelSet: KernelSet
    /// Bytes of the activation arena.
    public let arenaBytes: Int
    /// Bytes of constant (weight) storage.
    public let constantBytes: Int
    /// The number of layers left after folding and fusion.
    public var layerCount: Int { layers.count }
    /// Floating-point operations of one inference.
    public var flops: Double { layers.reduce(0) { $0 + $1.flops } }

    let layers: [Layer]
    /// Whether each layer is worth its share on the helper threads, decided once (see `minimumParallelFlops`).
    let splitsOverThreads: [Bool]
    let arena: UnsafeMutableRawPointer
    /// The memory `arena` points into, kept alive with the interpreter: shared with other interpreters, or its own.
    let arenaMemory: SharedArena
    let constants: UnsafeMutablePointer<Float>
    let scratch: UnsafeMutablePointer<Float>
    let scratchPerWorker: Int
    /// Helper threads for `options.threads` > 1.
    let pool: ItemRunner?
    let inputPointers: [UnsafeMutablePointer<Float>]
    let outputPointers: [UnsafeMutablePointer<Float>]

    /// Single-threaded BLAS with its idle threads ended (`BLASConfiguration.runSingleThreaded`).
    static let configureBLAS: Void = { BLASConfiguration.runSingleThreaded() }()

    /// Upper bound on activation memory, so a hostile shape cannot cause a runaway allocation.
    public static let maximumArenaBytes = 1 << 30

    public convenience init(path: String, options: Options = Options()) throws {
        try self.init(model: try ModelAsset.loadModel(path), options: options)
    }

    public init(model: TFLiteModel, options: Options = Options()) throws {
        _ = Self.configureBLAS
        guard options.threads >= 1 && options.threads <= 256 else {
            throw EngineError.invalidArgument("threads must be between 1 and 256, got \(options.threads)")
        }
        self.options = options
        modelName = model.name
        do {
            kernelSet = try options.kernels.map { set in
                guard set.isSupported() else { throw KernelSetError.unsupported(set, supported: KernelSet.supported()) }
                return set
            } ?? KernelSet.fromEnvironment()
        } catch let error as KernelSetError {
            throw EngineError.invalidArgument(error.description)
        }
        let kernels = Microkernels(kernelSet, features: options.processor?.running(on: .current) ?? .current)

        let graph = try ExecutionPlan.loadGraph(model)
        let (steps, root) = ExecutionPlan.schedule(graph)
        let plan = ExecutionPlan.planMemory(graph, steps, root: root)
        if plan.size > Self.maximumArenaBytes {
            throw EngineError.invalidModel(model: model.name,
                reason: "activations need \(plan.size) bytes, more than the \(Self.maximumArenaBytes)-byte limit")
        }
        arenaBytes = plan.size
        // A slack after the last tensor: the int8 kernels read whole groups of 4 or 8 channels, as XNNPACK's do, and
        // multiply the bytes past a tensor's end by zero weights.
        let allocatedBytes = plan.size + MemoryPlanner.alignment
        if let shared = options.sharedArena, allocatedBytes <= shared.capacity {
            // Zero pages at first, then whatever the last interpreter left: no layer reads what it did not write.
            arenaMemory = shared
        } else {
            // Its own: zero pages, committed as the first run touches them, so that the activations and the model
            // file's bytes (which the caller drops after loading) are not resident at once.
            arenaMemory = try SharedArena(capacity: allocatedBytes)
        }
        arena = arenaMemory.base

        // Float constants read by the steps, converted once (filters the kernel set packs excepted).
        let packedFilters = ExecutionPlan.packedFilters(graph, steps, kernels: kernels)
        let placed = ExecutionPlan.placeConstants(graph, steps, packedFilters: packedFilters)
        constants = allocateAlignedFloats(max(placed.count, 16))
        constants.initialize(repeating: 0, count: max(placed.count, 16))
        for (t, offset) in placed.offsets {
            if let values = graph.tensors[t].constant?.floats() {
                (constants + offset).update(from: values, count: min(values.count, graph.tensors[t].elementCount))
            }
        }

        var pointers = [UnsafeMutablePointer<Float>?](repeating: nil, count: graph.tensors.count)
        for t in 0..<graph.tensors.count {
            if let offset = placed.offsets[t] {
                pointers[t] = constants + offset
            } else if let offset = plan.offsets[root[t]] {
                pointers[t] = (arena + offset).assumingMemoryBound(to: Float.self)
            }
        }
        var binder = TensorBinder(graph: graph, pointers: pointers, kernels: kernels, threads: options.threads,
                                  interleavesBlocks: options.interleavesBlocks ?? !kernels.set.fusesMultiplyAdd)
        binder.reducesOverUnitAxesContiguously = options.reducesOverUnitAxesContiguously
        let layers: [Layer]
        do {
            layers = try ExecutionPlan.buildLayers(steps, graph, binder)
        } catch {
            constants.deallocate()
            throw error
        }
        self.layers = layers
        splitsOverThreads = layers.map { $0.parallelWork >= Self.minimumParallelFlops }
        constantBytes = placed.count * 4 + layers.reduce(0) { $0 + $1.packedWeightBytes }
        scratchPerWorker = ((layers.map(\.scratchFloatsPerWorker).max() ?? 0) + 15) / 16 * 16 + 16
        scratch = allocateAlignedFloats(scratchPerWorker * options.threads)
        scratch.initialize(repeating: 0, count: scratchPerWorker * options.threads)
        pool = makeWorkerPool(helpers: options.threads - 1)

        func describe(_ t: Int) -> TensorDescription {
            let tensor = graph.tensors[t]
            let q = tensor.isQuantized8Bit ? tensor.quantization.flatMap { q in
                q.scales.first.map { QuantizationParameters(scale: $0, zeroPoint: Int(q.zeroPoints.first ?? 0)) }
            } : nil
            return TensorDescription(name: tensor.name, shape: tensor.shape, type: tensor.type, quantization: q)
        }
        inputs = graph.inputs.map(describe)
        outputs = graph.outputs.map(describe)
        var inputPointers: [UnsafeMutablePointer<Float>] = [], outputPointers: [UnsafeMutablePointer<Float>] = []
        for t in graph.inputs + graph.outputs {
            guard let p = pointers[t] else {
                throw EngineError.invalidModel(model: model.name,
                                               reason: "graph input or output '\(graph.tensors[t].name)' has no memory")
            }
            if inputPointers.count < graph.inputs.count { inputPointers.append(p) } else { outputPointers.append(p) }
        }
        self.inputPointers = inputPointers
        self.outputPointers = outputPointers
    }

    deinit {
        pool?.stop()
        deallocateAlignedFloats(constants)
        deallocateAlignedFloats(scratch)
    }

    /// Copies `values` into input `index`, a float32 input; the count must match the input's shape.
    public func setInput(_ index: Int, _ values: [Float]) throws {
        try requireInput(index)
        try requireFloat(inputs[index], "input \(index)", "setInput(_:bytes:)")
        guard values.count == inputs[index].elementCount else {
            throw EngineError.invalidArgument("input \(index) ('\(inputs[index].name)') of \(modelName) takes "
                                              + "\(inputs[index].elementCount) values \(inputs[index].shape), got "
                                              + "\(values.count)")
        }
        inputPointers[index].update(from: values, count: values.count)
    }

    /// Direct access to input `index`'s memory, a float32 input (for writing without a copy). Throws
    /// `EngineError.invalidArgument` for an index out of range or an input of another type (use `withInputBytes`).
    public func withInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws -> R {
        try requireInput(index)
        try requireFloat(inputs[index], "input \(index)", "withInputBytes(_:_:)")
        return try stageInput(index, body)
    }

    /// Copies `bytes` into input `index` as they are: the input's values in its own type (one byte a value for int8
    /// and uint8, little-endian floats for float32); the count must be the input's `byteCount`.
    public func setInput<C: Collection>(_ index: Int, bytes: C) throws where C.Element == UInt8 {
        try requireInput(index)
        guard bytes.count == inputs[index].byteCount else {
            throw EngineError.invalidArgument("input \(index) ('\(inputs[index].name)') of \(modelName) takes "
                                              + "\(inputs[index].byteCount) bytes (\(inputs[index].elementCount) "
                                              + "\(inputs[index].type) values \(inputs[index].shape)), got "
                                              + "\(bytes.count)")
        }
        let target = UnsafeMutableRawBufferPointer(start: inputPointers[index], count: bytes.count)
        target.copyBytes(from: bytes)
    }

    /// Direct access to input `index`'s bytes, whatever its type (for writing without a copy). Throws
    /// `EngineError.invalidArgument` for an index out of range.
    public func withInputBytes<R>(_ index: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) throws -> R {
        try requireInput(index)
        return try stageInputBytes(index, body)
    }

    /// A copy of output `index`'s bytes: its values in its own type (one byte a value for int8 and uint8;
    /// `outputs[index].quantization` maps them to real numbers).
    public func outputBytes(_ index: Int) throws -> [UInt8] {
        try requireOutput(index)
        return stageOutputBytes(index) { Array($0) }
    }

    /// Read access to output `index`'s bytes without a copy, whatever its type. Throws
    /// `EngineError.invalidArgument` for an index out of range.
    public func withOutputBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try requireOutput(index)
        return try stageOutputBytes(index, body)
    }

    // The task stages' accessors: each stage checks at load that the tensors it reads and writes exist and have
    // the type it uses (ModelResources.requireFloat32), so a wrong model is refused once, by name, before any run.

    package func stageInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < inputs.count && inputs[index].type == .float32, "stage input \(index)")
        return try body(UnsafeMutableBufferPointer(start: inputPointers[index], count: inputs[index].elementCount))
    }

    package func stageInputBytes<R>(_ index: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < inputs.count, "stage input \(index)")
        return try body(UnsafeMutableRawBufferPointer(start: inputPointers[index], count: inputs[index].byteCount))
    }

    package func stageOutput<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < outputs.count && outputs[index].type == .float32, "stage output \(index)")
        return try body(UnsafeBufferPointer(start: outputPointers[index], count: outputs[index].elementCount))
    }

    package func stageOutputBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < outputs.count, "stage output \(index)")
        return try body(UnsafeRawBufferPointer(start: outputPointers[index], count: outputs[index].byteCount))
    }

    /// Throws unless `index` names an input.
    private func requireInput(_ index: Int) throws {
        guard index >= 0 && index < inputs.count else {
            throw EngineError.invalidArgument("\(modelName) has \(inputs.count) inputs, no input \(index)")
        }
    }

    /// Throws unless `index` names an output.
    private func requireOutput(_ index: Int) throws {
        guard index >= 0 && index < outputs.count else {
            throw EngineError.invalidArgument("\(modelName) has \(outputs.count) outputs, no output \(index)")
        }
    }

    /// Throws unless `tensor` is float32, naming the byte-level call to use instead.
    private func requireFloat(_ tensor: TensorDescription, _ what: String, _ instead: String) throws {
        guard tensor.type == .float32 else {
            throw EngineError.invalidArgument("\(what) of \(modelName) is \(tensor), not float32: use \(instead)")
        }
    }

    /// Layers below this much work (about a microsecond) run on the calling thread alone: a
    /// polling helper joins within a few hundred nanoseconds, but tinier layers do not repay it
    /// (`Layer.parallelWork` weighs memory-bound layers in these units).
    static let minimumParallelFlops: Double = 1.5e5

    /// Runs the model on the current inputs. The inputs' memory may hold other values afterwards (the arena reuses
    /// it once an input's last reader has run): set them again before the next run.
    public func invoke() {
        let parallel = RunContext(threads: options.threads, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker,
                                  pool: pool)
        let serial = RunContext(threads: 1, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker)
        withSubnormalsFlushed {
            for (layer, split) in zip(layers, splitsOverThreads) { layer.run(split ? parallel : serial) }
        }
    }

    /// Runs the model and accumulates time per op type into `profile`. Layers that run
    /// interleaved (a convolution, its depthwise convolution and projection) run one after the
    /// other here, so that each op type gets its own time; the profile's total is therefore a
    /// little above what `invoke()` takes.
    public func invoke(profile: inout [String: OpProfile]) {
        let parallel = RunContext(threads: options.threads, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker,
                                  pool: pool)
        let serial = RunContext(threads: 1, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker)
        func record(_ layer: Layer, _ seconds: Double) {
            var p = profile[layer.kind] ?? OpProfile(kind: layer.kind, count: 0, seconds: 0, flops: 0)
            p.count += 1
            p.seconds += seconds
            p.flops += layer.flops
            profile[layer.kind] = p
        }
        withSubnormalsFlushed {
            for (layer, split) in zip(layers, splitsOverThreads) {
                let context = split ? parallel : serial
                if let block = layer as? ConvolutionThenDepthwiseLayer {
                    block.runApart(context, timed: record)
                    continue
                }
                let start = DispatchTime.now().uptimeNanoseconds
                layer.run(context)
                record(layer, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
    }

    /// The calling thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`): what a one-thread run costs on a
    /// machine whose other processes preempt it, for `vision-bench --cpu-time`.
    public static func threadCPUNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Time of each layer over `runs` runs, with a description of its shape (for tuning kernels); on more than one
    /// thread, the layers too small to split say so.
    /// With `apart`, the members of interleaved blocks run one after the other and are timed each.
    /// With `threadCPUTime`, each layer's least CPU time of the calling thread over the runs (one thread), instead
    /// of its mean wall time.
    public func layerTimes(runs: Int, apart: Bool = false,
                           threadCPUTime: Bool = false) -> [(kind: String, detail: String, seconds: Double,
                                                              flops: Double)] {
        let parallel = RunContext(threads: options.threads, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker,
                                  pool: pool)
        let serial = RunContext(threads: 1, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker)
        var rows: [(kind: String, detail: String, seconds: Double, flops: Double)] = []
        // The arena reuses an input's memory once its last reader has run: each run starts from the same inputs.
        let savedInputs = (0..<inputs.count).map {
            Array(UnsafeBufferPointer(start: inputPointers[$0], count: inputs[$0].elementCount))
        }
        for run in 0..<runs {
            for (p, values) in zip(inputPointers, savedInputs) { p.update(from: values, count: values.count) }
            var i = 0
            var split = true
            func record(_ layer: Layer, _ seconds: Double) {
                if run == 0 {
                    var detail = String(describing: (layer as? CustomStringConvertible)?.description ?? "")
                    // Layers too small to split run on the calling thread alone, as in `invoke()`.
                    if options.threads > 1 && !split { detail += detail.isEmpty ? "(one thread)" : " (one thread)" }
                    rows.append((layer.kind, detail, threadCPUTime ? .infinity : 0, layer.flops))
                }
                if threadCPUTime { rows[i].seconds = min(rows[i].seconds, seconds) } else {
                    rows[i].seconds += seconds / Double(runs)
                }
                i += 1
            }
            let clock = threadCPUTime ? Self.threadCPUNanoseconds : { DispatchTime.now().uptimeNanoseconds }
            withSubnormalsFlushed {
                for (layer, splits) in zip(layers, splitsOverThreads) {
                    split = splits
                    let context = splits ? parallel : serial
                    if apart, let block = layer as? ConvolutionThenDepthwiseLayer {
                        block.runApart(context, timed: record)
                        continue
                    }
                    let start = clock()
                    layer.run(context)
                    record(layer, Double(clock() - start) / 1e9)
                }
            }
        }
        return rows
    }

    /// A copy of output `index`, a float32 output.
    public func output(_ index: Int) throws -> [Float] {
        try requireOutput(index)
        try requireFloat(outputs[index], "output \(index)", "outputBytes(_:)")
        return stageOutput(index) { Array($0) }
    }

    /// Read access to output `index`, a float32 output, without a copy. Throws `EngineError.invalidArgument` for an
    /// index out of range or an output of another type (use `withOutputBytes`).
    public func withOutput<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) throws -> R {
        try requireOutput(index)
        try requireFloat(outputs[index], "output \(index)", "withOutputBytes(_:_:)")
        return try stageOutput(index, body)
    }

    /// Sets all inputs, runs, and returns copies of all outputs (float32 inputs and outputs).
    public func run(_ inputValues: [[Float]]) throws -> [[Float]] {
        guard inputValues.count == inputs.count else {
            throw EngineError.invalidArgument("\(modelName) takes \(inputs.count) inputs, got \(inputValues.count)")
        }
        for (i, v) in inputValues.enumerated() { try setInput(i, v) }
        invoke()
        return try (0..<outputs.count).map { try output($0) }
    }
}
