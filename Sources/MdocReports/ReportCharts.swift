/// Inline SVG charts for the HTML report: no scripts, no fonts or images fetched, colours from
/// the page's CSS classes (`bar-valid`, `bar-invalid`, `bar-indeterminate`, ...), so they print.
///
/// Right-to-left pages get mirrored charts: bars grow from the right, time runs right to left,
/// labels sit on the right. Every text is escaped with ``HTML/escape(_:)``.
struct ReportCharts {
    let formatter: ReportFormatter
    var rtl: Bool { formatter.language.isRightToLeft }

    /// One segment of a stacked bar: a count and the CSS class that colours it.
    struct Segment {
        var count: Int
        var cssClass: String
    }

    /// One row of a horizontal bar chart.
    struct BarRow {
        var label: String
        var segments: [Segment]
        /// Shown after the bar.
        var value: String
    }

    /// `x` in a box of `width`, mirrored for right-to-left pages.
    private func x(_ value: Double, width: Double) -> Double { rtl ? width - value : value }

    /// A rectangle from `x0` of width `w`, mirrored for right-to-left pages.
    private func rect(x x0: Double, y: Double, width w: Double, height: Double, box: Double, cssClass: String, radius: Double = 0) -> String {
        let left = rtl ? box - x0 - w : x0
        return "<rect x=\"\(n(left))\" y=\"\(n(y))\" width=\"\(n(max(w, 0)))\" height=\"\(n(height))\" rx=\"\(n(radius))\" class=\"\(cssClass)\"/>"
    }

    private func text(_ content: String, x x0: Double, y: Double, box: Double, anchor: String, cssClass: String = "") -> String {
        // "start"/"end" are relative to the text direction; keep them physical by mirroring.
        let physical: String
        switch anchor {
        case "start": physical = rtl ? "end" : "start"
        case "end": physical = rtl ? "start" : "end"
        default: physical = anchor
        }
        let classAttribute = cssClass.isEmpty ? "" : " class=\"\(cssClass)\""
        return "<text x=\"\(n(x(x0, width: box)))\" y=\"\(n(y))\" text-anchor=\"\(physical)\"\(classAttribute)>\(HTML.escape(content))</text>"
    }

    /// A number for an SVG attribute (one decimal, no exponent).
    private func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// A single 100% stacked bar (shares of a whole).
    func stackedShare(_ segments: [Segment], label: String) -> String {
        let width = 640.0, height = 28.0
        let total = segments.reduce(0) { $0 + $1.count }
        var parts: [String] = [
            rect(x: 0, y: 0, width: width, height: height, box: width, cssClass: "bar-track", radius: 6)
        ]
        var offset = 0.0
        if total > 0 {
            for segment in segments where segment.count > 0 {
                let w = width * Double(segment.count) / Double(total)
                parts.append(rect(x: offset, y: 0, width: w, height: height, box: width, cssClass: segment.cssClass))
                offset += w
            }
        }
        return svg(width: width, height: height, label: label, body: parts.joined())
    }

    /// Characters of a bar label before it is cut.
    static let labelCharacters = 34

    /// Horizontal bars, one per row, segments stacked, scaled to the largest row.
    func horizontalBars(_ rows: [BarRow], label: String) -> String {
        let labelWidth = 230.0, barWidth = 360.0, valueWidth = 110.0, rowHeight = 26.0, barHeight = 16.0
        let width = labelWidth + barWidth + valueWidth
        let height = max(rowHeight * Double(rows.count), rowHeight)
        let maximum = max(rows.map { $0.segments.reduce(0) { $0 + $1.count } }.max() ?? 0, 1)
        var parts: [String] = []
        for (i, row) in rows.enumerated() {
            let y = Double(i) * rowHeight
            parts.append(text(Self.shorten(row.label, to: Self.labelCharacters), x: labelWidth - 8, y: y + rowHeight / 2 + 4, box: width, anchor: "end"))
            parts.append(rect(x: labelWidth, y: y + (rowHeight - barHeight) / 2, width: barWidth, height: barHeight, box: width, cssClass: "bar-track", radius: 3))
            var offset = labelWidth
            var total = 0
            for segment in row.segments where segment.count > 0 {
                let w = barWidth * Double(segment.count) / Double(maximum)
                parts.append(rect(x: offset, y: y + (rowHeight - barHeight) / 2, width: w, height: barHeight, box: width, cssClass: segment.cssClass))
                offset += w
                total += segment.count
            }
            parts.append(text(row.value, x: offset + 6, y: y + rowHeight / 2 + 4, box: width, anchor: "start", cssClass: "value"))
        }
        return svg(width: width, height: height, label: label, body: parts.joined())
    }

    /// The timeline: a stacked column per period (valid, invalid, indeterminate) on the count
    /// axis, and the share not valid as a line on a 0–100% axis.
    func timeline(_ points: [ComplianceReport.TimelinePoint], label: String) -> String {
        let width = 1000.0, height = 280.0
        let left = 56.0, right = 56.0, top = 12.0, bottom = 40.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let maximum = Self.axisTop(points.map(\.transactions).max() ?? 0, steps: 4)
        var parts: [String] = []
        // Grid and axes: 4 steps.
        for step in 0...4 {
            let fraction = Double(step) / 4
            let y = top + plotHeight * (1 - fraction)
            parts.append("<line x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(y))\" y2=\"\(n(y))\" class=\"grid\"/>")
            parts.append(text(formatter.integer(Int((Double(maximum) * fraction).rounded())), x: left - 6, y: y + 4, box: width, anchor: "end", cssClass: "axis"))
            parts.append(text(formatter.percent(fraction), x: width - right + 6, y: y + 4, box: width, anchor: "start", cssClass: "axis rate"))
        }
        guard !points.isEmpty else { return svg(width: width, height: height, label: label, body: parts.joined()) }
        let slot = plotWidth / Double(points.count)
        let barWidth = max(min(slot * 0.7, 40), 1)
        var line: [String] = []
        let labelEvery = max(1, Int((Double(points.count) / 12).rounded(.up)))
        for (i, point) in points.enumerated() {
            let center = left + slot * (Double(i) + 0.5)
            var y = top + plotHeight
            for (count, cssClass) in [(point.valid, "bar-valid"), (point.invalid, "bar-invalid"), (point.indeterminate, "bar-indeterminate")] where count > 0 {
                let h = plotHeight * Double(count) / Double(maximum)
                y -= h
                parts.append(rect(x: center - barWidth / 2, y: y, width: barWidth, height: h, box: width, cssClass: cssClass))
            }
            let rateY = top + plotHeight * (1 - point.notValidShare)
            line.append("\(n(x(center, width: width))),\(n(rateY))")
            if i % labelEvery == 0 {
                parts.append(text(formatter.period(point.period), x: center, y: height - bottom + 18, box: width, anchor: "middle", cssClass: "axis"))
            }
        }
        parts.append("<polyline points=\"\(line.joined(separator: " "))\" class=\"rate-line\"/>")
        for coordinate in line {
            let xy = coordinate.split(separator: ",")
            if xy.count == 2 { parts.append("<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"2.5\" class=\"rate-dot\"/>") }
        }
        return svg(width: width, height: height, label: label, body: parts.joined())
    }

    private func svg(width: Double, height: Double, label: String, body: String) -> String {
        "<svg viewBox=\"0 0 \(n(width)) \(n(height))\" width=\"\(n(width))\" height=\"\(n(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\"><title>\(HTML.escape(label))</title>\(body)</svg>"
    }

    /// `text` cut to `limit` characters with an ellipsis.
    static func shorten(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// The top of an axis of `steps` equal steps covering `value`, each step 1, 2 or 5 × 10ⁿ, so
    /// that every tick is a whole round number (7 over 4 steps → 8; 180 → 200).
    static func axisTop(_ value: Int, steps: Int) -> Int {
        let needed = max(Double(value) / Double(steps), 1)
        var magnitude = 1.0
        while magnitude * 10 <= needed { magnitude *= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where magnitude * factor >= needed {
            return Int(magnitude * factor) * steps
        }
        return Int(magnitude * 10) * steps
    }
}
