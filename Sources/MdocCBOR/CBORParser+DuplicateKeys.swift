// Duplicate map keys (RFC 8949 §5.6): keys compared by value, as CBORDecoder.swift's stance says.

extension CBORParser {
    /// A map key reduced to what duplicate detection compares (RFC 8949 §5.6, as this layer
    /// defines key equality), read from the buffer so that comparing keys touches no reference
    /// counts.
    struct KeySummary {
        /// 0 unsigned, 1 negative, 2 byte string, 3 text string, 4 any other item.
        var kind: UInt8
        /// The integer's argument (kinds 0 and 1).
        var number: UInt64
        /// Buffer range compared bytewise: the content (kinds 2, 3) or the whole item (kind 4).
        var start: Int
        var end: Int
        /// Position of the entry in the map.
        var index: Int
    }

    /// The summary of the already-validated key occupying buffer offsets `start..<end`, or
    /// `nil` for an indefinite-length string key (its content is not contiguous).
    func keySummary(start: Int, end: Int, index: Int) -> KeySummary? {
        let initial = buffer[start]
        let major = initial >> 5
        let info = initial & 0x1f
        let headLength = info < 24 ? 1 : 1 &+ (1 << Int(min(info, 27) &- 24))
        switch major {
        case 0, 1:
            var argument = UInt64(info)
            if info >= 24 {
                argument = 0
                for offset in (start &+ 1)..<(start &+ headLength) { argument = argument << 8 | UInt64(buffer[offset]) }
            }
            return KeySummary(kind: major, number: argument, start: start, end: end, index: index)
        case 2, 3:
            guard info != 31 else { return nil }
            return KeySummary(kind: major, number: 0, start: start &+ headLength, end: end, index: index)
        default:
            return KeySummary(kind: 4, number: 0, start: start, end: end, index: index)
        }
    }

    /// Bytewise comparison of two buffer ranges: negative, zero or positive.
    static func compareBytes(_ buffer: UnsafeBufferPointer<UInt8>, _ a: KeySummary, _ b: KeySummary) -> Int {
        let lengthA = a.end &- a.start
        let lengthB = b.end &- b.start
        if lengthA != lengthB { return lengthA < lengthB ? -1 : 1 }
        var i = 0
        while i < lengthA {
            let x = buffer[a.start &+ i]
            let y = buffer[b.start &+ i]
            if x != y { return x < y ? -1 : 1 }
            i &+= 1
        }
        return 0
    }

    /// Whether two summarized keys are equal.
    func sameKey(_ a: KeySummary, _ b: KeySummary) -> Bool {
        guard a.kind == b.kind else { return false }
        return a.kind < 2 ? a.number == b.number : Self.compareBytes(buffer, a, b) == 0
    }

    /// Summarizes the key just decoded (from buffer offset `start` to `position`) onto
    /// `keySummaries`. Returns `false` for a key that cannot be summarized (an
    /// indefinite-length string), which sends the map to
    /// ``CBORMap/firstDuplicateKey(interleaved:)``.
    mutating func pushKeySummary(start: Int, index: Int) -> Bool {
        guard let summary = keySummary(start: start, end: position, index: index) else { return false }
        keySummaries.append(summary)
        return true
    }

    /// The position of the first key of a small map (keys and values interleaved in `items`, at
    /// most ``CBORMap/pairwiseDuplicateCheckLimit`` entries) that repeats an earlier one, if any:
    /// the keys are summarized into a stack buffer and compared pairwise, as
    /// ``firstDuplicateSummary(from:)`` does for the summary stack. A key that cannot be
    /// summarized (an indefinite-length string) sends the map to
    /// ``CBORMap/firstDuplicateKey(interleaved:)``.
    func firstDuplicateInSmallMap(_ items: [CBOR]) -> Int? {
        let n = items.count / 2
        guard n > 1 else { return nil }
        let found: Int?? = withUnsafeTemporaryAllocation(of: KeySummary.self, capacity: n) { summaries in
            for i in 0..<n {
                let key = items[2 &* i].encoded
                guard let summary = keySummary(start: key.startIndex &- base, end: key.endIndex &- base, index: i) else {
                    return nil
                }
                summaries.initializeElement(at: i, to: summary)
                for j in 0..<i where sameKey(summary, summaries[j]) { return .some(i) }
            }
            return .some(nil)
        }
        guard let found else { return CBORMap.firstDuplicateKey(interleaved: items) }
        return found
    }

    /// The position of the first key in `keySummaries[base...]` that repeats an earlier one, if
    /// any. Small maps are compared pairwise; larger ones are sorted in place (the region is
    /// discarded afterwards), where a repeated key lands next to its predecessor and the
    /// smallest such later position is the first repetition in received order.
    mutating func firstDuplicateSummary(from base: Int) -> Int? {
        let end = keySummaries.count
        let n = end &- base
        guard n > 1 else { return nil }
        if n <= CBORMap.pairwiseDuplicateCheckLimit {
            for i in (base &+ 1)..<end {
                for j in base..<i where sameKey(keySummaries[i], keySummaries[j]) { return keySummaries[i].index }
            }
            return nil
        }
        let buffer = self.buffer
        keySummaries[base..<end].sort { a, b in
            if a.kind != b.kind { return a.kind < b.kind }
            if a.kind < 2 {
                if a.number != b.number { return a.number < b.number }
            } else {
                let order = Self.compareBytes(buffer, a, b)
                if order != 0 { return order < 0 }
            }
            return a.index < b.index
        }
        var first: Int?
        for i in (base &+ 1)..<end where sameKey(keySummaries[i &- 1], keySummaries[i]) {
            first = min(first ?? Int.max, keySummaries[i].index)
        }
        return first
    }
}
