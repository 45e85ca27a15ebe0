import ArgumentParser
import Foundation
import MdocImaging
import MdocVerification
import MdocIngest

/// `mdocverify image FILE... --out DIR`: the document-scan size limit on loose files.
struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Bring document scans under the size limit (1,000,000 bytes by default) by re-encoding them as JPEG.",
        discussion: """
            A file at or under the limit is copied byte for byte under its own name; a larger JPEG or \
            PNG is re-encoded as a baseline JPEG (quality searched first, then DCT-domain downscaling), \
            EXIF orientation applied and other metadata dropped, written as DIR/<name>.jpg. Originals \
            are never modified. Exit codes: 0 all processed; 1 at least one rejected; 2 usage error; 130 interrupted (Ctrl-C).
            """)

    @Argument(help: "Image files (JPEG or PNG).")
    var files: [String]

    @Option(name: .long, help: "Output folder.")
    var out: String

    @Option(name: .customLong("image-limit"), help: "Maximum size in bytes.")
    var imageLimit: Int = ImageLimiter.defaultLimit

    func validate() throws {
        if imageLimit < 1_000 { throw ValidationError("--image-limit must be at least 1000 bytes") }
    }

    func run() throws {
        if let problem = makeDirectories(out) {
            throw SetupError("cannot create the output folder \(out) (\(problem)): pass another --out")
        }
        var rejected = 0
        var used = Set<String>()
        for file in files {
            let name = (file as NSString).lastPathComponent
            let bytes: [UInt8]
            do { bytes = try InputFile.read(file) } catch {
                print("\(Style.red("rejected"))   \(name): \(error)")
                rejected += 1
                continue
            }
            let outcome = ImageLimiter.fit(bytes, limit: imageLimit)
            let evidence = outcome.evidence
            switch evidence.outcome {
            case .kept:
                let size = "\(Counting.of(bytes.count, "byte")), within the limit of \(Counting.of(imageLimit, "byte"))"
                guard !Self.isSameFile(URL(fileURLWithPath: out).appendingPathComponent(name).path, file) else {
                    print("\(Style.green("kept"))       \(name)  \(size) (already in \(out))")
                    continue
                }
                let target = URL(fileURLWithPath: out).appendingPathComponent(Self.unique(name, among: &used, in: out))
                do {
                    try AtomicFile.write(bytes, to: target)
                    print("\(Style.green("kept"))       \(name)\(Self.renamed(name, target))  \(size)")
                } catch {
                    print("\(Style.red("rejected"))   \(name): cannot write \(target.path): \(error)")
                    rejected += 1
                }
            case .reencoded:
                let stem = (name as NSString).deletingPathExtension
                guard let output = outcome.output, let result = evidence.output else { continue }
                let natural = URL(fileURLWithPath: out).appendingPathComponent(stem + ".jpg")
                guard !Self.isSameFile(natural.path, file) else {
                    print("\(Style.red("rejected"))   \(name): the output \(natural.path) would replace the original; pass another --out")
                    rejected += 1
                    continue
                }
                let target = URL(fileURLWithPath: out).appendingPathComponent(Self.unique(stem + ".jpg", among: &used, in: out))
                do {
                    try AtomicFile.write(output, to: target)
                    print("\(Style.green("reencoded"))  \(name) → \(target.lastPathComponent)  \(Counting.number(bytes.count)) → \(Counting.of(result.bytes, "byte")), "
                        + "quality \(result.quality), scale 1/\(result.scaleDenominator), \(result.width)×\(result.height) pixels, "
                        + Counting.of(evidence.passes.count, "pass", plural: "passes"))
                } catch {
                    print("\(Style.red("rejected"))   \(name): cannot write \(target.path): \(error)")
                    rejected += 1
                }
            case .rejected(let rejection, let reason):
                print("\(Style.red("rejected"))   \(name)  \(rejection.checkID): \(reason)")
                rejected += 1
            }
        }
        if rejected > 0 { throw ExitCode(1) }
    }

    /// `name`, or `name-2`, `name-3`, ... (before the extension) when an earlier input of this
    /// invocation took it or a file of that name is in `folder` (an earlier run's output): two
    /// inputs never write the same output file, and no earlier output is replaced.
    static func unique(_ name: String, among used: inout Set<String>, in folder: String) -> String {
        let stem = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        var candidate = name
        var counter = 1
        while used.contains(candidate) || FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(candidate)) {
            counter += 1
            candidate = ext.isEmpty ? "\(stem)-\(counter)" : "\(stem)-\(counter).\(ext)"
        }
        used.insert(candidate)
        return candidate
    }

    /// " → name-2.jpg" when the output was given another name than the input's.
    static func renamed(_ name: String, _ target: URL) -> String {
        target.lastPathComponent == name ? "" : " → \(target.lastPathComponent)"
    }

    /// Whether both paths name the same existing file (an output must never replace its input).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
