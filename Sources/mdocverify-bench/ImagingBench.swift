import Foundation
import MdocImaging
import MdocSamples

/// Imaging benchmarks: QR decoding of engagement images and fitting document scans under the
/// 1 MB limit (targets in main.swift). Single-threaded; each figure is the median of several runs
/// timed with `ContinuousClock`.
///
/// The engagement images are read from `Tests/MdocImagingTests/Fixtures` of the source tree
/// (found from this file's path, or from the current directory); when they are missing those
/// figures are left out. The scans are generated (`SyntheticScan`, fixed seeds).
func imagingBenchmarks() -> [(name: String, value: Double, unit: String)] {
    var results: [(name: String, value: Double, unit: String)] = []
    let clock = ContinuousClock()

    func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    func timed(_ runs: Int, _ body: () -> Void) -> Double {
        body()  // warm-up
        return median((0..<runs).map { _ in milliseconds(clock.measure(body)) })
    }

    // QR decoding of engagement images.
    if let folder = fixtureFolder() {
        for (file, name, runs) in [
            ("annexd-qr.png", "imaging.qr.png600", 20), ("annexd-photo.jpg", "imaging.qr.photo3000x4000", 10),
        ] {
            guard let data = FileManager.default.contents(atPath: folder + "/" + file) else { continue }
            let bytes = Array(data)
            var found = false
            let ms = timed(runs) { found = EngagementImageReader.read(bytes).uri != nil }
            if found { results.append((name, ms, "ms")) }
        }
    }

    // Re-encoding one 12 MP scan (a text document scanned at quality 95, about 3.5 MB).
    if let scan = try? SyntheticScan.jpeg(.textDocument, megapixels: 12, quality: 95, seed: 2026, noise: 6) {
        var outcome: FitOutcome? = nil
        let ms = timed(5) { outcome = ImageLimiter.fit(scan) }
        results.append(("imaging.fit.scan12mp.input", Double(scan.count), "bytes"))
        results.append(("imaging.fit.scan12mp", ms, "ms"))
        results.append(("imaging.fit.scan12mp.passes", Double(outcome?.evidence.passes.count ?? 0), "passes"))
        results.append(("imaging.fit.scan12mp.quality", Double(outcome?.evidence.output?.quality ?? 0), "quality"))
    }

    // Passes over a spread of scans from about 1.2 MB to 15 MB.
    let spread: [(SyntheticScan.Kind, Double, Int, Int)] = [
        (.textDocument, 8, 3, 92), (.textDocument, 10, 4, 93), (.photo, 12, 8, 95), (.textDocument, 12, 6, 95),
        (.photo, 16, 12, 94), (.textDocument, 16, 14, 95), (.photo, 20, 20, 94), (.textDocument, 20, 20, 95),
        (.photo, 24, 24, 95), (.textDocument, 24, 32, 95),
    ]
    var passes: [Int] = []
    var times: [Double] = []
    var sizes: [Int] = []
    for (index, (kind, megapixels, noise, quality)) in spread.enumerated() {
        guard let scan = try? SyntheticScan.jpeg(kind, megapixels: megapixels, quality: quality, seed: UInt64(index), noise: noise)
        else { continue }
        var outcome: FitOutcome? = nil
        times.append(milliseconds(clock.measure { outcome = ImageLimiter.fit(scan) }))
        guard let outcome, outcome.evidence.outcome == .reencoded else { continue }
        passes.append(outcome.evidence.passes.count)
        sizes.append(scan.count)
    }
    if !passes.isEmpty {
        results.append(("imaging.fit.spread.count", Double(passes.count), "scans"))
        results.append(("imaging.fit.spread.smallest", Double(sizes.min() ?? 0), "bytes"))
        results.append(("imaging.fit.spread.largest", Double(sizes.max() ?? 0), "bytes"))
        results.append(("imaging.fit.spread.passes.mean", Double(passes.reduce(0, +)) / Double(passes.count), "passes"))
        results.append(("imaging.fit.spread.passes.max", Double(passes.max() ?? 0), "passes"))
        results.append(("imaging.fit.spread.median", median(times), "ms"))
    }
    return results
}

/// `Tests/MdocImagingTests/Fixtures` of the source tree, if it can be found.
private func fixtureFolder() -> String? {
    let relative = "Tests/MdocImagingTests/Fixtures"
    let fromSource = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(relative).path
    for candidate in [fromSource, FileManager.default.currentDirectoryPath + "/" + relative] {
        if FileManager.default.fileExists(atPath: candidate + "/annexd-qr.png") { return candidate }
    }
    return nil
}
