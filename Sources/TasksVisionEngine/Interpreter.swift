import COpenBLAS
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
        public init(threads: Int = 1, kernels: KernelSet? = nil) {
            self.threads = threads
            self.kernels = kernels
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
    let arena: UnsafeMutableRawPointer
    let constants: UnsafeMutablePointer<Float>
    let scratch: UnsafeMutablePointer<Float>
    let scratchPerWorker: Int
    /// Helper threads for `options.threads` > 1.
    let pool: WorkerPool?
    let inputPointers: [UnsafeMutablePointer<Float>]
    let outputPointers: [UnsafeMutablePointer<Float>]

    /// Single-threaded BLAS: the engine parallelizes over tiles itself, which keeps
    /// results independent of the thread count.
    static let configureBLAS: Void = { openblas_set_num_threads(1) }()

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
        var graph = try Graph(model: model)
        // Unsupported ops are reported before any work is done.
        for node in graph.nodes where !OpRegistry.isSupported(node.op) {
            throw EngineError.unsupportedOperator(model: model.name, operatorIndex: node.index, op: node.op.name)
        }
        graph.fuse()

        // Every tensor read or written at run time must be float32.
        for node in graph.nodes {
            for t in node.inputs + node.outputs where t >= 0 {
                let tensor = graph.tensors[t]
                if tensor.constant == nil && tensor.type != .float32 {
                    throw EngineError.unsupportedFeature(model: model.name, operatorIndex: node.index, op: node.op.name,
                                                        reason: "tensor '\(tensor.name)' is \(tensor.type); the engine runs float32 activations")
                }
            }
        }
        for node in graph.nodes {
            for t in node.inputs + node.outputs where t >= 0 && graph.tensors[t].constant == nil && graph.tensors[t].elementCount == 0 {
                throw EngineError.invalidModel(model: model.name, reason: "\(graph.describe(node)) uses tensor '\(graph.tensors[t].name)' with an empty shape \(graph.tensors[t].shape)")
            }
        }
        for t in graph.inputs + graph.outputs where graph.tensors[t].type != .float32 {
            throw EngineError.unsupportedFeature(model: model.name, operatorIndex: -1, op: "graph",
                                                reason: "input/output '\(graph.tensors[t].name)' is \(graph.tensors[t].type); only float32 is supported")
        }

        // Views (RESHAPE and the like) share their input's memory.
        var root = Array(0..<graph.tensors.count)
        func find(_ t: Int) -> Int { var t = t; while root[t] != t { t = root[t] }; return t }
        var steps: [Graph.Node] = []
        for node in graph.nodes {
            if OpRegistry.aliasing.contains(node.op), let i = node.inputs.first, i >= 0, graph.tensors[i].constant == nil,
               let o = node.outputs.first, !graph.inputs.contains(o),
               graph.tensors[i].elementCount == graph.tensors[o].elementCount {
                root[o] = find(i)
            } else {
                steps.append(node)
            }
        }

        // A depthwise convolution moves up to just after the convolution it reads (over independent
        // steps such as a pooling branch) so that the two can run interleaved.
        var j = 0
        while j < steps.count {
            defer { j += 1 }
            guard steps[j].op == .depthwiseConv2D, let input = steps[j].inputs.first, input >= 0,
                  let i = steps[..<j].lastIndex(where: { $0.outputs.contains(input) }), i + 1 < j, steps[i].op == .conv2D,
                  steps[j].reads.allSatisfy({ $0 < 0 || $0 == input || graph.tensors[$0].constant != nil }) else { continue }
            let depthwise = steps.remove(at: j)
            steps.insert(depthwise, at: i + 1)
        }

        // Lifetimes of arena buffers, by execution step.
        var first = [Int: Int](), last = [Int: Int]()
        func touch(_ t: Int, _ step: Int) {
            let r = find(t)
            first[r] = min(first[r] ?? step, step)
            last[r] = max(last[r] ?? step, step)
        }
        for t in graph.inputs { touch(t, -1) }
        // A convolution followed by a depthwise convolution of its output may run interleaved
        // with it (ConvolutionThenDepthwiseLayer): its inputs then live through the next step.
        func feedsDepthwise(_ s: Int) -> Bool {
            s + 1 < steps.count && steps[s].op == .conv2D && steps[s + 1].op == .depthwiseConv2D
                && steps[s].outputs.first != nil && steps[s + 1].inputs.first == steps[s].outputs.first
        }
        // ... and so may a convolution of the depthwise output after that.
        func feedsProjection(_ s: Int) -> Bool {
            feedsDepthwise(s) && s + 2 < steps.count && steps[s + 2].op == .conv2D
                && steps[s + 1].outputs.first != nil && steps[s + 2].inputs.first == steps[s + 1].outputs.first
        }
        for (s, node) in steps.enumerated() {
            let readUntil = s >= 1 && feedsProjection(s - 1) ? s + 1 : feedsProjection(s) ? s + 2 : feedsDepthwise(s) ? s + 1 : s
            for t in node.reads where t >= 0 && graph.tensors[t].constant == nil { touch(t, readUntil) }
            for t in node.outputs { touch(t, s) }
        }
        for t in graph.outputs where graph.tensors[t].constant == nil { touch(t, steps.count) }
        let requests = first.keys.sorted().map { r in
            MemoryPlanner.Request(id: r, bytes: max(graph.tensors[r].elementCount, 1) * 4, firstStep: first[r]!, lastStep: last[r]!)
        }
        let plan = MemoryPlanner.plan(requests)
        if plan.size > Self.maximumArenaBytes {
            throw EngineError.invalidModel(model: model.name, reason: "activations need \(plan.size) bytes, more than the \(Self.maximumArenaBytes)-byte limit")
        }
        arenaBytes = plan.size
        arena = UnsafeMutableRawPointer.allocate(byteCount: max(plan.size, 64), alignment: MemoryPlanner.alignment)
        arena.initializeMemory(as: UInt8.self, repeating: 0, count: max(plan.size, 64))

        // Float constants read by the remaining steps, converted once.
        var constantOffsets: [Int: Int] = [:]
        var constantCount = 0
        for node in steps {
            for t in node.reads where t >= 0 && constantOffsets[t] == nil {
                if let c = graph.tensors[t].constant, c.type == .float32 || c.type == .float16 {
                    constantOffsets[t] = constantCount
                    constantCount += (c.count + 15) / 16 * 16
                }
            }
        }
        // Graph outputs that are constants still need memory to be read from.
        for t in graph.outputs where constantOffsets[t] == nil && graph.tensors[t].constant != nil {
            constantOffsets[t] = constantCount
            constantCount += (graph.tensors[t].elementCount + 15) / 16 * 16
        }
        constantBytes = constantCount * 4
        constants = UnsafeMutablePointer<Float>.allocate(capacity: max(constantCount, 16))
        constants.initialize(repeating: 0, count: max(constantCount, 16))
        for (t, offset) in constantOffsets {
            if let values = graph.tensors[t].constant?.floats() {
                (constants + offset).update(from: values, count: min(values.count, graph.tensors[t].elementCount))
            }
        }

        var pointers = [UnsafeMutablePointer<Float>?](repeating: nil, count: graph.tensors.count)
        for t in 0..<graph.tensors.count {
            if let offset = constantOffsets[t] {
                pointers[t] = constants + offset
            } else if let offset = plan.offsets[find(t)] {
                pointers[t] = (arena + offset).assumingMemoryBound(to: Float.self)
            }
        }
        let binder = TensorBinder(graph: graph, pointers: pointers, kernels: Microkernels(kernelSet))
        var layers: [Layer] = []
        do {
            let consumers = graph.consumerCounts()
            func readElsewhere(_ t: Int) -> Bool { consumers[t] != 1 || graph.outputs.contains(t) }
            for (s, node) in steps.enumerated() {
                let layer = try OpRegistry.makeLayer(node, graph, binder)
                if s > 0 && feedsDepthwise(s - 1), let depthwise = layer as? DepthwiseConv2DLayer,
                   let convolution = layers.last as? Conv2DLayer,
                   ConvolutionThenDepthwiseLayer.canInterleave(convolution, depthwise) {
                    layers[layers.count - 1] = ConvolutionThenDepthwiseLayer(convolution, depthwise,
                                                                             convolutionOutputRead: readElsewhere(steps[s - 1].outputs[0]))
                } else if s > 1 && feedsProjection(s - 2), let projection = layer as? Conv2DLayer,
                          let pair = layers.last as? ConvolutionThenDepthwiseLayer, pair.projection == nil,
                          ConvolutionThenDepthwiseLayer.canProject(pair.depthwise, projection) {
                    layers[layers.count - 1] = ConvolutionThenDepthwiseLayer(
                        pair.convolution, pair.depthwise, projection: projection, convolutionOutputRead: pair.convolutionOutputRead,
                        depthwiseOutputRead: readElsewhere(steps[s - 1].outputs[0]))
                } else {
                    layers.append(layer)
                }
            }
        } catch {
            arena.deallocate()
            constants.deallocate()
            throw error
        }
        self.layers = layers
        scratchPerWorker = ((layers.map(\.scratchFloatsPerWorker).max() ?? 0) + 15) / 16 * 16 + 16
        scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchPerWorker * options.threads)
        scratch.initialize(repeating: 0, count: scratchPerWorker * options.threads)
        pool = options.threads > 1 ? WorkerPool(helpers: options.threads - 1) : nil

        func describe(_ t: Int) -> TensorDescription {
            TensorDescription(name: graph.tensors[t].name, shape: graph.tensors[t].shape, type: graph.tensors[t].type)
        }
        inputs = graph.inputs.map(describe)
        outputs = graph.outputs.map(describe)
        inputPointers = graph.inputs.map { pointers[$0]! }
        outputPointers = graph.outputs.map { pointers[$0]! }
    }

    deinit {
        pool?.stop()
        arena.deallocate()
        constants.deallocate()
        scratch.deallocate()
    }

    /// Copies `values` into input `index`; the count must match the input's shape.
    public func setInput(_ index: Int, _ values: [Float]) throws {
        guard index >= 0 && index < inputs.count else {
            throw EngineError.invalidArgument("\(modelName) has \(inputs.count) inputs, no input \(index)")
        }
        guard values.count == inputs[index].elementCount else {
            throw EngineError.invalidArgument("input \(index) ('\(inputs[index].name)') of \(modelName) takes \(inputs[index].elementCount) values \(inputs[index].shape), got \(values.count)")
        }
        inputPointers[index].update(from: values, count: values.count)
    }

    /// Direct access to input `index`'s memory (for writing without a copy).
    public func withInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < inputs.count, "input index out of range")
        return try body(UnsafeMutableBufferPointer(start: inputPointers[index], count: inputs[index].elementCount))
    }

    /// Layers below this much work (about 10 microseconds) run on the calling thread alone: a
    /// spinning helper joins within a microsecond or two, but tiny layers do not repay it.
    static let minimumParallelFlops: Double = 3e5

    /// Runs the model on the current inputs.
    public func invoke() {
        let parallel = RunContext(threads: options.threads, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker, pool: pool)
        let serial = RunContext(threads: 1, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker)
        for layer in layers { layer.run(layer.flops >= Self.minimumParallelFlops ? parallel : serial) }
    }

    /// Runs the model and accumulates time per op type into `profile`. Layers that run
    /// interleaved (a convolution, its depthwise convolution and projection) run one after the
    /// other here, so that each op type gets its own time; the profile's total is therefore a
    /// little above what `invoke()` takes.
    public func invoke(profile: inout [String: OpProfile]) {
        let parallel = RunContext(threads: options.threads, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker, pool: pool)
        let serial = RunContext(threads: 1, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker)
        func record(_ layer: Layer, _ seconds: Double) {
            var p = profile[layer.kind] ?? OpProfile(kind: layer.kind, count: 0, seconds: 0, flops: 0)
            p.count += 1
            p.seconds += seconds
            p.flops += layer.flops
            profile[layer.kind] = p
        }
        for layer in layers {
            let context = layer.flops >= Self.minimumParallelFlops ? parallel : serial
            if let block = layer as? ConvolutionThenDepthwiseLayer {
                block.runApart(context, timed: record)
                continue
            }
            let start = DispatchTime.now().uptimeNanoseconds
            layer.run(context)
            record(layer, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
    }

    /// Time of each layer over `runs` runs, with a description of its shape (for tuning kernels).
    public func layerTimes(runs: Int) -> [(kind: String, detail: String, seconds: Double, flops: Double)] {
        let context = RunContext(threads: options.threads, scratch: scratch, scratchFloatsPerWorker: scratchPerWorker, pool: pool)
        var times = [Double](repeating: 0, count: layers.count)
        for _ in 0..<runs {
            for (i, layer) in layers.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                layer.run(context)
                times[i] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
        }
        return layers.enumerated().map { i, l in (l.kind, String(describing: (l as? CustomStringConvertible)?.description ?? ""), times[i] / Double(runs), l.flops) }
    }

    /// A copy of output `index`.
    public func output(_ index: Int) throws -> [Float] {
        guard index >= 0 && index < outputs.count else {
            throw EngineError.invalidArgument("\(modelName) has \(outputs.count) outputs, no output \(index)")
        }
        return Array(UnsafeBufferPointer(start: outputPointers[index], count: outputs[index].elementCount))
    }

    /// Read access to output `index` without a copy.
    public func withOutput<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < outputs.count, "output index out of range")
        return try body(UnsafeBufferPointer(start: outputPointers[index], count: outputs[index].elementCount))
    }

    /// Sets all inputs, runs, and returns copies of all outputs.
    public func run(_ inputValues: [[Float]]) throws -> [[Float]] {
        guard inputValues.count == inputs.count else {
            throw EngineError.invalidArgument("\(modelName) takes \(inputs.count) inputs, got \(inputValues.count)")
        }
        for (i, v) in inputValues.enumerated() { try setInput(i, v) }
        invoke()
        return try (0..<outputs.count).map { try output($0) }
    }
}
