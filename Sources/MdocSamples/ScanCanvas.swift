/// SplitMix64: small, fast, and the same on every platform.
private struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in `range` (a small modulo bias is irrelevant for pictures).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

/// The pixels of one synthetic scan (``SyntheticScan``), drawn from a seed.
struct ScanCanvas {
    let width: Int
    let height: Int
    var pixels: [UInt8]
    private var random: SplitMix64

    init(width: Int, height: Int, seed: UInt64) {
        self.width = width
        self.height = height
        self.pixels = [UInt8](repeating: 255, count: width * height * 3)
        self.random = SplitMix64(state: seed)
    }

    /// Fills rows `y0..<y1`, columns `x0..<x1` (clipped) with a flat colour.
    mutating func fill(x0: Int, y0: Int, x1: Int, y1: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) {
        let xa = max(0, x0), xb = min(width, x1), ya = max(0, y0), yb = min(height, y1)
        guard xa < xb, ya < yb else { return }
        let w = width
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in ya..<yb {
                var p = base + (y * w + xa) * 3
                for _ in xa..<xb {
                    p[0] = r
                    p[1] = g
                    p[2] = b
                    p += 3
                }
            }
        }
    }

    /// Fills a rectangle with a smooth two-axis gradient between colour pairs.
    mutating func gradient(x0: Int, y0: Int, x1: Int, y1: Int, from: (Int, Int, Int), to: (Int, Int, Int)) {
        let xa = max(0, x0), xb = min(width, x1), ya = max(0, y0), yb = min(height, y1)
        guard xa < xb, ya < yb else { return }
        let w = width
        let span = max(1, (xb - xa) + (yb - ya))
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in ya..<yb {
                var p = base + (y * w + xa) * 3
                var t = (y - ya) * 256 / span
                let step = 256 * 256 / span  // t advances by 256/span per pixel, kept in 1/256ths
                var tFine = t * 256
                for _ in xa..<xb {
                    t = tFine >> 8
                    p[0] = UInt8(truncatingIfNeeded: from.0 + (to.0 - from.0) * t / 256)
                    p[1] = UInt8(truncatingIfNeeded: from.1 + (to.1 - from.1) * t / 256)
                    p[2] = UInt8(truncatingIfNeeded: from.2 + (to.2 - from.2) * t / 256)
                    p += 3
                    tFine += step
                }
            }
        }
    }

    /// A filled ellipse inside the box.
    mutating func ellipse(x0: Int, y0: Int, x1: Int, y1: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) {
        let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
        let rx = max(1, (x1 - x0) / 2), ry = max(1, (y1 - y0) / 2)
        let top = max(0, cy - ry), bottom = min(height, cy + ry)
        guard top < bottom else { return }
        for y in top..<bottom {
            let dy = Double(y - cy) / Double(ry)
            let half = Int(Double(rx) * max(0, 1 - dy * dy).squareRoot())
            fill(x0: cx - half, y0: y, x1: cx + half, y1: y + 1, r, g, b)
        }
    }

    mutating func drawDocument() {
        // Paper tone, slightly uneven (lighting falls off towards the bottom right).
        gradient(x0: 0, y0: 0, x1: width, y1: height, from: (248, 246, 240), to: (226, 224, 216))
        let margin = width / 14
        // Coloured header band with light "title" strokes.
        let bandHeight = height / 14
        gradient(x0: margin, y0: margin, x1: width - margin, y1: margin + bandHeight, from: (30, 70, 150), to: (60, 120, 190))
        strokes(x0: margin * 2, y0: margin + bandHeight / 3, x1: width / 2, lineHeight: bandHeight / 3, ink: (235, 235, 240))
        // Photo box at the top right under the band.
        let photoX = width - margin - width / 4, photoY = margin + bandHeight + height / 40
        let photoW = width / 4, photoH = width / 3
        gradient(x0: photoX, y0: photoY, x1: photoX + photoW, y1: photoY + photoH, from: (170, 140, 120), to: (80, 90, 110))
        ellipse(
            x0: photoX + photoW / 4, y0: photoY + photoH / 6, x1: photoX + photoW * 3 / 4, y1: photoY + photoH * 2 / 3,
            200, 170, 150)
        // Lines of text: left column beside the photo, then full width below it.
        let lineHeight = max(12, height / 70)
        var y = photoY
        while y + lineHeight < height - margin {
            let right = y < photoY + photoH + lineHeight ? photoX - margin / 2 : width - margin
            let shortLine = random.int(0...9) == 0
            strokes(
                x0: margin, y0: y, x1: shortLine ? margin + (right - margin) / 3 : right, lineHeight: lineHeight,
                ink: (28, 30, 38))
            y += lineHeight * 2 + (random.int(0...12) == 0 ? lineHeight * 2 : 0)
        }
    }

    /// Glyph-like strokes along a line: each "glyph" is a few vertical and horizontal bars.
    mutating func strokes(x0: Int, y0: Int, x1: Int, lineHeight: Int, ink: (Int, Int, Int)) {
        let stroke = max(1, lineHeight / 7)
        let glyphWidth = max(4, lineHeight * 3 / 5)
        let (r, g, b) = (UInt8(ink.0), UInt8(ink.1), UInt8(ink.2))
        var x = x0
        while x + glyphWidth < x1 {
            if random.int(0...6) == 0 {  // word gap
                x += glyphWidth
                continue
            }
            let top = y0 + (random.int(0...3) == 0 ? 0 : lineHeight / 3)
            let bottom = y0 + lineHeight + (random.int(0...8) == 0 ? lineHeight / 4 : 0)
            let bars = random.int(1...3)
            for bar in 0..<bars {
                let bx = x + bar * (glyphWidth - stroke) / max(1, bars - 1 == 0 ? 1 : bars - 1)
                fill(x0: bx, y0: top, x1: bx + stroke, y1: bottom, r, g, b)
            }
            if random.int(0...1) == 0 {
                let hy = random.int(top...(bottom - stroke))
                fill(x0: x, y0: hy, x1: x + glyphWidth, y1: hy + stroke, r, g, b)
            }
            x += glyphWidth + stroke * 2
        }
    }

    mutating func drawPhoto() {
        gradient(x0: 0, y0: 0, x1: width, y1: height, from: (40, 90, 160), to: (230, 190, 120))
        for _ in 0..<24 {
            let x0 = random.int(-width / 8...width), y0 = random.int(-height / 8...height)
            let w = random.int(width / 20...width / 3), h = random.int(height / 20...height / 3)
            let from = (random.int(0...255), random.int(0...255), random.int(0...255))
            let to = (random.int(0...255), random.int(0...255), random.int(0...255))
            if random.int(0...1) == 0 {
                gradient(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h, from: from, to: to)
            } else {
                ellipse(
                    x0: x0, y0: y0, x1: x0 + w, y1: y0 + h, UInt8(from.0), UInt8(from.1), UInt8(from.2))
            }
        }
    }

    /// Adds sensor-like grain: mostly luminance (the same offset on R, G and B) with a little
    /// chrominance, roughly Gaussian (sum of three uniform draws) and correlated over neighbouring
    /// pixels (a 3-tap smoothing), peak about `amplitude`. Drawn from 64 Ki-entry tables walked at
    /// a random offset per row: cheap, and without visible repetition.
    mutating func addGrain(amplitude: Int) {
        guard amplitude > 0 else { return }
        let tableSize = 1 << 16
        let mask = tableSize - 1
        func table(_ peak: Int) -> [Int] {
            var raw = [Int](repeating: 0, count: tableSize)
            for index in 0..<tableSize {
                raw[index] = random.int(-peak...peak) + random.int(-peak...peak) + random.int(-peak...peak)
            }
            var smooth = [Int](repeating: 0, count: tableSize)
            for index in 0..<tableSize {
                // (a + 4b + c) / 9 of sums of three uniform draws: light smoothing, and a
                // spread comparable to `peak`.
                let sum = raw[(index &- 1) & mask] + 4 * raw[index] + raw[(index + 1) & mask]
                smooth[index] = max(-127, min(127, sum / 9)) + 128
            }
            return smooth
        }
        let luma = table(amplitude)
        let chroma = table(max(1, amplitude / 2)).map { ($0 - 128) }
        // clamp[v + n + 128] = min(255, max(0, v + n)) for v in 0...255, n in -128...127.
        var clamp = [UInt8](repeating: 0, count: 512)
        for index in 0..<512 { clamp[index] = UInt8(truncatingIfNeeded: max(0, min(255, index - 128))) }
        var offsets = [Int](repeating: 0, count: height)
        for y in 0..<height { offsets[y] = random.int(0...(tableSize - 1)) }
        let columns = width
        let rows = height
        luma.withUnsafeBufferPointer { lumaTable in
            chroma.withUnsafeBufferPointer { chromaTable in
                clamp.withUnsafeBufferPointer { clampTable in
                    offsets.withUnsafeBufferPointer { rowOffsets in
                        pixels.withUnsafeMutableBufferPointer { buffer in
                            guard let l = lumaTable.baseAddress, let c = chromaTable.baseAddress,
                                let clampBase = clampTable.baseAddress, let offsetBase = rowOffsets.baseAddress,
                                var p = buffer.baseAddress
                            else { return }
                            for y in 0..<rows {
                                var k = offsetBase[y]
                                var x = columns
                                while x > 0 {
                                    let n = l[k & mask]
                                    p[0] = clampBase[Int(p[0]) &+ n &+ c[k & mask]]
                                    p[1] = clampBase[Int(p[1]) &+ n]
                                    p[2] = clampBase[Int(p[2]) &+ n &- c[(k &+ 7919) & mask]]
                                    p += 3
                                    k &+= 1
                                    x &-= 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
