/// A rect carried from frame to frame with the ID of its track (nil for a fresh detection).
public struct TrackedRect: Sendable, Equatable {
    public var rect: NormalizedRect
    public var id: Int?
    public init(rect: NormalizedRect, id: Int? = nil) { self.rect = rect; self.id = id }
}

/// MediaPipe's association calculators with track IDs carried along: the rects come out as
/// `HandAssociationCalculator` and `AssociationNormRectCalculator` give them (`HandAssociation` and
/// `AssociationNormRect` are these without the IDs); each also says which track it continues:
/// - hands: tracked rects are kept with their IDs and a new palm that overlaps one (IoU above
///   the threshold) is dropped, so a palm never takes over a track; palms left over start tracks;
/// - poses: a later rect replaces the earlier ones it overlaps and takes over the ID of the one it
///   overlaps most, so a person re-detected where a track was keeps its ID.
/// Rects without an ID get fresh ones, in order, from `TrackIdCounter`; IDs are never reused.
public enum TrackIdAssociation {
    public static func hands(tracked: [TrackedRect], detected: [NormalizedRect],
                             minSimilarity: Float) -> [TrackedRect] {
        var result = tracked
        for r in detected where !result.contains(where: { HandAssociation.iou($0.rect, r) > minSimilarity }) {
            result.append(TrackedRect(rect: r))
        }
        return result
    }

    public static func poses(_ inputs: [[TrackedRect]], minSimilarity: Float) -> [TrackedRect] {
        var result: [TrackedRect] = []
        var first = true
        for list in inputs where !list.isEmpty {
            for (k, item) in list.enumerated() {
                if first && k == 0 { result.append(item); continue }
                var inherited: (id: Int, iou: Float)?
                result.removeAll { old in
                    let iou = HandAssociation.iou(item.rect, old.rect)
                    guard iou > minSimilarity else { return false }
                    if let id = old.id, iou > (inherited?.iou ?? -1) { inherited = (id, iou) }
                    return true
                }
                var taken = item
                if taken.id == nil { taken.id = inherited?.id }
                result.append(taken)
            }
            first = false
        }
        return result
    }
}

/// Hands out track IDs, 1, 2, 3, ..., never reusing one within a task instance.
public struct TrackIdCounter: Sendable {
    public private(set) var last = 0
    public init() {}

    /// Gives every rect without an ID a fresh one.
    public mutating func assign(_ rects: [TrackedRect]) -> [TrackedRect] {
        rects.map { r in
            guard r.id == nil else { return r }
            last += 1
            return TrackedRect(rect: r.rect, id: last)
        }
    }
}

extension TrackIdCounter {
    /// A fresh ID.
    public mutating func next() -> Int {
        last += 1
        return last
    }
}

/// An object's track (beyond MediaPipe, whose object detector keeps none): its ID, category, last box
/// (normalized to the displayed image) and the frame it was last seen in.
public struct ObjectTrack: Sendable, Equatable {
    public var id: Int
    public var category: String?
    public var box: RelativeBox
    public var lastSeen: Int
    public init(id: Int, category: String?, box: RelativeBox, lastSeen: Int) {
        self.id = id; self.category = category; self.box = box; self.lastSeen = lastSeen
    }
}

extension TrackIdAssociation {
    /// Objects: each detection, in the detector's order (best first), continues the track of its category
    /// that it overlaps most (IoU above `minSimilarity`, the earlier track on a tie) among those no earlier
    /// detection took and that were missing from at most `memory` frames since; the others start tracks.
    /// Returns each detection's ID and the tracks to carry to the next frame.
    public static func objects(_ detections: [(box: RelativeBox, category: String?)], tracks: [ObjectTrack],
                               frame: Int, minSimilarity: Float, memory: Int,
                               counter: inout TrackIdCounter) -> (ids: [Int], tracks: [ObjectTrack]) {
        var open = tracks.filter { frame - $0.lastSeen - 1 <= memory }
        var taken = [Bool](repeating: false, count: open.count)
        var ids: [Int] = []
        for d in detections {
            var best: (index: Int, iou: Float)?
            for (i, t) in open.enumerated() where !taken[i] && t.category == d.category {
                let iou = NonMaxSuppression.similarity(.intersectionOverUnion, t.box, d.box)
                if iou > minSimilarity && iou > (best?.iou ?? -1) { best = (i, iou) }
            }
            if let b = best {
                taken[b.index] = true
                open[b.index].box = d.box
                open[b.index].lastSeen = frame
                ids.append(open[b.index].id)
            } else {
                let id = counter.next()
                ids.append(id)
                open.append(ObjectTrack(id: id, category: d.category, box: d.box, lastSeen: frame))
                taken.append(true)
            }
        }
        return (ids, open)
    }
}
