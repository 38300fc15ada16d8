// java.util.PriorityQueue with a comparator, as OpenJDK 17 implements it: a binary min-heap in an
// array, `offer` sifting up, `poll` moving the last element to the root and sifting down, and
// iteration in array order. ML Kit's k-NN keeps its k nearest samples in two of these; which of
// equally distant samples survive, and the order the second stage visits them, follow these steps.
struct JavaPriorityQueue<Element> {
    private(set) var elements: [Element] = []
    let comparator: (Element, Element) -> Int

    init(comparator: @escaping (Element, Element) -> Int) { self.comparator = comparator }

    var count: Int { elements.count }

    mutating func offer(_ x: Element) {
        elements.append(x)
        var k = elements.count - 1
        while k > 0 {
            let parent = (k - 1) >> 1
            let e = elements[parent]
            if comparator(x, e) >= 0 { break }
            elements[k] = e
            k = parent
        }
        elements[k] = x
    }

    @discardableResult
    mutating func poll() -> Element? {
        guard let result = elements.first else { return nil }
        let x = elements.removeLast()
        let n = elements.count
        if n > 0 {
            var k = 0
            let half = n >> 1
            while k < half {
                var child = (k << 1) + 1
                var c = elements[child]
                let right = child + 1
                if right < n && comparator(c, elements[right]) > 0 {
                    child = right
                    c = elements[child]
                }
                if comparator(x, c) <= 0 { break }
                elements[k] = c
                k = child
            }
            elements[k] = x
        }
        return result
    }
}
