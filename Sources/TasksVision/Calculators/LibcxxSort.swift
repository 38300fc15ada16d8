/// `std::sort` and `std::partial_sort` as the libc++ in MediaPipe's library (libmediapipe.so links LLVM's libc++)
/// carries them out, so that elements the comparison calls equal (categories of one score, frequent with a
/// quantized model) end in the order MediaPipe's `TensorsToClassificationCalculator` leaves them. Neither sort is
/// stable, so the order of equal elements is the algorithm's: libc++'s introsort (llvm-project
/// libcxx/include/__algorithm/sort.h; insertion sort under 24 elements, Tukey's ninther over 128, partitions
/// keeping equal elements right of the pivot, or left when the pivot equals the element before the range,
/// heap sort past the depth limit) and its heap-based `partial_sort`. Comparators for non-arithmetic
/// elements, as the calculator's lambda is: no branchless variants.
enum LibcxxSort {
    /// `std::sort(a.begin(), a.end(), less)`.
    static func sort<T>(_ a: inout [T], by less: (T, T) -> Bool) {
        guard a.count > 1 else { return }
        withoutActuallyEscaping(less) { less in
            a.withUnsafeMutableBufferPointer { buffer in
                let s = Sorter(a: buffer, less: less)
                // 2 * floor(log2(n))
                let depth = 2 * (Int.bitWidth - 1 - buffer.count.leadingZeroBitCount)
                s.introsort(0, buffer.count, depth: depth, leftmost: true)
            }
        }
    }

    /// `std::partial_sort(a.begin(), a.begin() + middle, a.end(), less)`: the first `middle` elements sorted,
    /// the rest in the order the heap selection leaves them.
    static func partialSort<T>(_ a: inout [T], middle: Int, by less: (T, T) -> Bool) {
        guard middle > 0, middle <= a.count else { return }
        withoutActuallyEscaping(less) { less in
            a.withUnsafeMutableBufferPointer { buffer in
                Sorter(a: buffer, less: less).partialSort(0, middle, buffer.count)
            }
        }
    }

    /// The algorithms on index ranges of one buffer; `less` is the comparator.
    struct Sorter<T> {
        let a: UnsafeMutableBufferPointer<T>
        let less: (T, T) -> Bool

        @inline(__always) func lt(_ i: Int, _ j: Int) -> Bool { less(a[i], a[j]) }
        @inline(__always) func swapAt(_ i: Int, _ j: Int) { a.swapAt(i, j) }

        // MARK: small sorts

        /// `__sort3`: orders x, y, z with 2-3 comparisons.
        func sort3(_ x: Int, _ y: Int, _ z: Int) {
            if !lt(y, x) {
                if !lt(z, y) { return }
                swapAt(y, z)
                if lt(y, x) { swapAt(x, y) }
                return
            }
            if lt(z, y) {
                swapAt(x, z)
                return
            }
            swapAt(x, y)
            if lt(z, y) { swapAt(y, z) }
        }

        func sort4(_ x1: Int, _ x2: Int, _ x3: Int, _ x4: Int) {
            sort3(x1, x2, x3)
            if lt(x4, x3) {
                swapAt(x3, x4)
                if lt(x3, x2) {
                    swapAt(x2, x3)
                    if lt(x2, x1) { swapAt(x1, x2) }
                }
            }
        }

        func sort5(_ x1: Int, _ x2: Int, _ x3: Int, _ x4: Int, _ x5: Int) {
            sort4(x1, x2, x3, x4)
            if lt(x5, x4) {
                swapAt(x4, x5)
                if lt(x4, x3) {
                    swapAt(x3, x4)
                    if lt(x3, x2) {
                        swapAt(x2, x3)
                        if lt(x2, x1) { swapAt(x1, x2) }
                    }
                }
            }
        }

        /// `__insertion_sort` of [first, last).
        func insertionSort(_ first: Int, _ last: Int) {
            guard first != last else { return }
            var i = first + 1
            while i < last {
                var j = i - 1
                if lt(i, j) {
                    let t = a[i]
                    var k = j
                    j = i
                    repeat {
                        a[j] = a[k]
                        j = k
                        if j == first { break }
                        k -= 1
                    } while less(t, a[k])
                    a[j] = t
                }
                i += 1
            }
        }

        /// `__insertion_sort_unguarded`: an element before `first` is no greater than any in the range.
        func insertionSortUnguarded(_ first: Int, _ last: Int) {
            guard first != last else { return }
            var i = first + 1
            while i < last {
                var j = i - 1
                if lt(i, j) {
                    let t = a[i]
                    var k = j
                    j = i
                    repeat {
                        a[j] = a[k]
                        j = k
                        k -= 1
                    } while less(t, a[k])
                    a[j] = t
                }
                i += 1
            }
        }

        /// `__insertion_sort_incomplete`: sorts, giving up after 8 moved elements; true when sorted.
        func insertionSortIncomplete(_ first: Int, _ last: Int) -> Bool {
            switch last - first {
            case 0, 1: return true
            case 2:
                if lt(last - 1, first) { swapAt(first, last - 1) }
                return true
            case 3: sort3(first, first + 1, last - 1); return true
            case 4: sort4(first, first + 1, first + 2, last - 1); return true
            case 5: sort5(first, first + 1, first + 2, first + 3, last - 1); return true
            default: break
            }
            var j = first + 2
            sort3(first, first + 1, j)
            let limit = 8
            var count = 0
            var i = j + 1
            while i != last {
                if lt(i, j) {
                    let t = a[i]
                    var k = j
                    j = i
                    repeat {
                        a[j] = a[k]
                        j = k
                        if j == first { break }
                        k -= 1
                    } while less(t, a[k])
                    a[j] = t
                    count += 1
                    if count == limit { return i + 1 == last }
                }
                j = i
                i += 1
            }
            return true
        }

        // MARK: partitions

        /// `__partition_with_equals_on_right`: the pivot (at `first`) placed; elements equal to it go right.
        /// Returns the pivot's position and whether the range was already partitioned.
        func partitionWithEqualsOnRight(_ begin: Int, _ end: Int) -> (Int, Bool) {
            var first = begin, last = end
            let pivot = a[first]
            repeat { first += 1 } while less(a[first], pivot)
            if begin == first - 1 {
                while first < last {
                    last -= 1
                    if less(a[last], pivot) { break }
                }
            } else {
                repeat { last -= 1 } while !less(a[last], pivot)
            }
            let alreadyPartitioned = first >= last
            while first < last {
                swapAt(first, last)
                repeat { first += 1 } while less(a[first], pivot)
                repeat { last -= 1 } while !less(a[last], pivot)
            }
            let pivotPosition = first - 1
            if begin != pivotPosition { a[begin] = a[pivotPosition] }
            a[pivotPosition] = pivot
            return (pivotPosition, alreadyPartitioned)
        }

        /// `__partition_with_equals_on_left`: elements equal to the pivot go left; returns the new first.
        func partitionWithEqualsOnLeft(_ begin: Int, _ end: Int) -> Int {
            var first = begin, last = end
            let pivot = a[first]
            if less(pivot, a[last - 1]) {
                repeat { first += 1 } while !less(pivot, a[first])
            } else {
                first += 1
                while first < last && !less(pivot, a[first]) { first += 1 }
            }
            if first < last {
                repeat { last -= 1 } while less(pivot, a[last])
            }
            while first < last {
                swapAt(first, last)
                repeat { first += 1 } while !less(pivot, a[first])
                repeat { last -= 1 } while less(pivot, a[last])
            }
            let pivotPosition = first - 1
            if begin != pivotPosition { a[begin] = a[pivotPosition] }
            a[pivotPosition] = pivot
            return first
        }

        // MARK: introsort

        /// `__introsort` on [first, last).
        func introsort(_ first: Int, _ last: Int, depth: Int, leftmost: Bool) {
            var first = first, last = last, depth = depth, leftmost = leftmost
            let limit = 24, nintherThreshold = 128
            while true {
                let len = last - first
                switch len {
                case 0, 1: return
                case 2:
                    if lt(last - 1, first) { swapAt(first, last - 1) }
                    return
                case 3: sort3(first, first + 1, last - 1); return
                case 4: sort4(first, first + 1, first + 2, last - 1); return
                case 5: sort5(first, first + 1, first + 2, first + 3, last - 1); return
                default: break
                }
                if len < limit {
                    if leftmost { insertionSort(first, last) } else { insertionSortUnguarded(first, last) }
                    return
                }
                if depth == 0 {
                    partialSort(first, last, last)
                    return
                }
                depth -= 1
                let half = len / 2
                if len > nintherThreshold {
                    sort3(first, first + half, last - 1)
                    sort3(first + 1, first + (half - 1), last - 2)
                    sort3(first + 2, first + (half + 1), last - 3)
                    sort3(first + (half - 1), first + half, first + (half + 1))
                    swapAt(first, first + half)
                } else {
                    sort3(first + half, first, last - 1)
                }
                if !leftmost && !lt(first - 1, first) {
                    first = partitionWithEqualsOnLeft(first, last)
                    continue
                }
                let (p, alreadyPartitioned) = partitionWithEqualsOnRight(first, last)
                var i = p
                if alreadyPartitioned {
                    let leftSorted = insertionSortIncomplete(first, i)
                    if insertionSortIncomplete(i + 1, last) {
                        if leftSorted { return }
                        last = i
                        continue
                    } else if leftSorted {
                        i += 1
                        first = i
                        continue
                    }
                }
                introsort(first, i, depth: depth, leftmost: leftmost)
                leftmost = false
                i += 1
                first = i
            }
        }

        // MARK: heaps

        /// `__sift_down` of the heap [first, first + len) from `start`.
        func siftDown(_ first: Int, _ len: Int, _ start: Int) {
            var start = start
            guard len >= 2 else { return }
            var child = start - first
            guard (len - 2) / 2 >= child else { return }
            child = 2 * child + 1
            var childAt = first + child
            if child + 1 < len && lt(childAt, childAt + 1) {
                childAt += 1
                child += 1
            }
            if lt(childAt, start) { return }
            let top = a[start]
            repeat {
                a[start] = a[childAt]
                start = childAt
                if (len - 2) / 2 < child { break }
                child = 2 * child + 1
                childAt = first + child
                if child + 1 < len && lt(childAt, childAt + 1) {
                    childAt += 1
                    child += 1
                }
            } while !less(a[childAt], top)
            a[start] = top
        }

        /// `__floyd_sift_down`: moves the hole at `first` down to a leaf, returning it.
        func floydSiftDown(_ first: Int, _ len: Int) -> Int {
            var hole = first, childAt = first, child = 0
            repeat {
                childAt += child + 1
                child = 2 * child + 1
                if child + 1 < len && lt(childAt, childAt + 1) {
                    childAt += 1
                    child += 1
                }
                a[hole] = a[childAt]
                hole = childAt
            } while child <= (len - 2) / 2
            return hole
        }

        /// `__sift_up` of the element at `bottom - 1` in the heap from `first`.
        func siftUp(_ first: Int, _ bottom: Int) {
            var len = bottom - first
            guard len > 1 else { return }
            len = (len - 2) / 2
            var at = first + len
            var last = bottom - 1
            guard lt(at, last) else { return }
            let t = a[last]
            repeat {
                a[last] = a[at]
                last = at
                if len == 0 { break }
                len = (len - 1) / 2
                at = first + len
            } while less(a[at], t)
            a[last] = t
        }

        /// `__pop_heap` of the heap [first, last) of `len` elements.
        func popHeap(_ first: Int, _ last: Int, _ len: Int) {
            guard len > 1 else { return }
            let top = a[first]
            var hole = floydSiftDown(first, len)
            let back = last - 1
            if hole == back {
                a[hole] = top
            } else {
                a[hole] = a[back]
                hole += 1
                a[back] = top
                siftUp(first, hole)
            }
        }

        /// `__make_heap` of [first, last).
        func makeHeap(_ first: Int, _ last: Int) {
            let n = last - first
            guard n > 1 else { return }
            var start = (n - 2) / 2
            while start >= 0 {
                siftDown(first, n, first + start)
                start -= 1
            }
        }

        /// `__partial_sort_impl`.
        func partialSort(_ first: Int, _ middle: Int, _ last: Int) {
            guard first != middle else { return }
            makeHeap(first, middle)
            let len = middle - first
            var i = middle
            while i != last {
                if lt(i, first) {
                    swapAt(i, first)
                    siftDown(first, len, first)
                }
                i += 1
            }
            var n = middle - first, end = middle
            while n > 1 {
                popHeap(first, end, n)
                end -= 1
                n -= 1
            }
        }
    }
}
