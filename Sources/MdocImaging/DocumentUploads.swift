import Foundation
public import MdocChecks
internal import MdocCrypto

/// The kind of identity document an upload shows. An open set: unknown values from a manifest
/// are kept (and reported as `image.documentType` warnings).
public struct DocumentType: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let idCard = DocumentType(rawValue: "idCard")
    public static let passport = DocumentType(rawValue: "passport")
    public static let driversLicense = DocumentType(rawValue: "driversLicense")
    public static let residencePermit = DocumentType(rawValue: "residencePermit")
    public static let other = DocumentType(rawValue: "other")
    /// The types the onboarding upload rule defines.
    public static let known: [DocumentType] = [.idCard, .passport, .driversLicense, .residencePermit, .other]

    public var isKnown: Bool { Self.known.contains(self) }
    public var description: String { rawValue }
    public static func < (lhs: DocumentType, rhs: DocumentType) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A (type, side) pair: the place an upload fills, such as the front of a driving licence.
public struct UploadSlot: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var type: DocumentType
    /// "front", "back", ... or `nil` for single-sided documents.
    public var side: String?

    public init(type: DocumentType, side: String?) {
        self.type = type
        self.side = side
    }

    public var description: String { side.map { "\(type)/\($0)" } ?? type.rawValue }
    public static func < (lhs: UploadSlot, rhs: UploadSlot) -> Bool { lhs.description < rhs.description }
}

/// One well-formed entry of `documents/manifest.json`.
public struct UploadEntry: Sendable, Hashable, Codable {
    /// Position in the manifest array, from 0.
    public var index: Int
    /// The entry's `id`, or its `file` when it has none.
    public var id: String
    /// Path relative to the `documents/` folder.
    public var file: String
    public var slot: UploadSlot
    /// The id of the upload this one replaces (a re-upload).
    public var originalDocumentId: String?
    /// The scan SDK's signature over the original bytes, as written (base64, standard or URL alphabet).
    public var dataSignature: String?
}

/// What processing one manifest entry produced.
public struct UploadResult: Sendable, Hashable {
    /// `upload[<id>]`, the subject of every check result below.
    public var subject: String
    /// `nil` when the manifest entry itself is malformed.
    public var entry: UploadEntry?
    /// `nil` when the entry is malformed or its file is missing.
    public var fit: FitOutcome?
    public var checkResults: [CheckResult]
    /// The upload this one validly supersedes.
    public var supersedes: String?
    /// The uploads that validly supersede this one.
    public var supersededBy: [String]
    /// The re-upload chain ending here, from the first upload: `[front-1, front-2, front-3]`;
    /// just `[id]` for an upload that replaces nothing (or whose link is broken).
    public var chain: [String]
}

/// What ``DocumentUploads/process(manifest:files:limit:options:verifySignature:)`` produced.
public struct UploadsResult: Sendable, Hashable {
    /// Results about the manifest as a whole (malformed JSON, files not listed).
    public var manifestResults: [CheckResult]
    /// One per manifest entry, in manifest order.
    public var uploads: [UploadResult]
    /// The current upload id for each slot: the last upload in manifest order that no valid
    /// re-upload supersedes. It is current even when its own image was rejected (its results say so).
    public var current: [UploadSlot: String]

    /// Every check result: the manifest's, then each upload's.
    public var checkResults: [CheckResult] { manifestResults + uploads.flatMap(\.checkResults) }

    /// The result for upload `id`.
    public func upload(_ id: String) -> UploadResult? { uploads.first { $0.entry?.id == id } }
}

/// Document-scan uploads of a transaction bundle (`documents/manifest.json` and the files it
/// names; DESIGN.md, "The transaction bundle" and "Images"). Rules from the onboarding upload
/// requirements (Wultra onboarding upload rule, seed 003); ISO/IEC 18013-5 does not cover them.
///
/// Manifest: a JSON array of objects
/// `{"file": "front.jpg", "type": "driversLicense", "side": "front", "originalDocumentId": "…"?,
/// "dataSignature": "<base64>"?, "id": "…"?}`; `id` defaults to `file`.
///
/// For each entry: the file is fitted under `limit` (``ImageLimiter``), the type is checked
/// against ``DocumentType/known`` (unknown types warn), the `dataSignature` is verified over the
/// ORIGINAL bytes by the caller's hook, and re-upload links are resolved: a re-upload supersedes
/// the upload it names, which must exist, have the same type and side, and not lead back to the
/// re-upload (`image.reuploadChain`). Several re-uploads naming the same upload are allowed with
/// a warning; the last in manifest order is current.
///
/// Does NOT read files (the caller passes them), write outputs (see ``AtomicFile``), or know
/// which signature scheme the scan SDK uses (the hook does).
public enum DocumentUploads {
    /// Largest manifest accepted: 1 MiB.
    public static let maxManifestBytes = 1 << 20
    /// Most entries processed; further entries are reported and ignored.
    public static let maxEntries = 1000
    /// Longest `dataSignature` text accepted (base64 characters).
    public static let maxSignatureLength = 16 * 1024

    /// Verifies the scan SDK's signature over the original upload bytes.
    public typealias SignatureVerifier = @Sendable (_ original: [UInt8], _ signature: [UInt8]) -> Bool

    public static func process(
        manifest: [UInt8], files: [String: [UInt8]], limit: Int = ImageLimiter.defaultLimit,
        options: FitOptions = .default, verifySignature: SignatureVerifier?
    ) -> UploadsResult {
        var result = UploadsResult(manifestResults: [], uploads: [], current: [:])
        let subject = "documents/manifest.json"
        guard manifest.count <= maxManifestBytes else {
            result.manifestResults.append(
                CheckResult(.imageManifest, .fail, "the manifest has \(manifest.count) bytes, over the limit of \(maxManifestBytes)", subject: subject))
            return result
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(manifest), options: [])
        } catch {
            result.manifestResults.append(
                CheckResult(.imageManifest, .fail, "the manifest is not valid JSON", subject: subject))
            return result
        }
        guard let array = parsed as? [Any] else {
            result.manifestResults.append(
                CheckResult(.imageManifest, .fail, "the manifest is not a JSON array of entries", subject: subject))
            return result
        }
        if array.count > maxEntries {
            result.manifestResults.append(
                CheckResult(
                    .imageManifest, .fail, "the manifest has \(array.count) entries; only the first \(maxEntries) are processed",
                    subject: subject))
        }

        // 1. Entries.
        var seenIDs: Set<String> = []
        var entries: [Int: UploadEntry] = [:]  // position in result.uploads -> valid entry
        for (index, element) in array.prefix(maxEntries).enumerated() {
            switch parseEntry(element, index: index) {
            case .failure(let problem):
                result.uploads.append(
                    UploadResult(
                        subject: "upload[\(problem.label)]", entry: nil, fit: nil,
                        checkResults: [CheckResult(.imageManifest, .fail, problem.reason, subject: "upload[\(problem.label)]")],
                        supersedes: nil, supersededBy: [], chain: []))
            case .success(let entry):
                let uploadSubject = "upload[\(entry.id)]"
                if seenIDs.contains(entry.id) {
                    result.uploads.append(
                        UploadResult(
                            subject: uploadSubject, entry: nil, fit: nil,
                            checkResults: [
                                CheckResult(.imageManifest, .fail, "entry \(index): id \"\(entry.id)\" is used by an earlier entry", subject: uploadSubject)
                            ], supersedes: nil, supersededBy: [], chain: []))
                    continue
                }
                seenIDs.insert(entry.id)
                entries[result.uploads.count] = entry
                result.uploads.append(process(entry, files: files, limit: limit, options: options, verifySignature: verifySignature))
            }
        }

        // 2. Files nobody lists: recorded, not fatal.
        let listed = Set(entries.values.map(\.file))
        for name in files.keys.sorted() where !listed.contains(name) && name != "manifest.json" {
            result.manifestResults.append(
                CheckResult(.imageManifest, .warn, "documents/\(name) is not listed in the manifest; ignored", subject: subject))
        }

        // 3. Re-upload links.
        resolveChains(&result, entries: entries)
        return result
    }

    // MARK: one entry

    private struct EntryProblem: Error {
        var label: String
        var reason: String
    }

    private static func parseEntry(_ element: Any, index: Int) -> Result<UploadEntry, EntryProblem> {
        guard let object = element as? [String: Any] else {
            return .failure(EntryProblem(label: "#\(index)", reason: "entry \(index) is not a JSON object"))
        }
        func text(_ key: String) -> (value: String?, wrongType: Bool) {
            guard let raw = object[key], !(raw is NSNull) else { return (nil, false) }
            guard let value = raw as? String else { return (nil, true) }
            return (value, false)
        }
        let file = text("file"), type = text("type"), side = text("side"), id = text("id")
        let original = text("originalDocumentId"), signature = text("dataSignature")
        let label = id.value ?? file.value ?? "#\(index)"
        for (key, field) in [
            ("file", file), ("type", type), ("side", side), ("id", id), ("originalDocumentId", original),
            ("dataSignature", signature),
        ] where field.wrongType {
            return .failure(EntryProblem(label: label, reason: "entry \(index): \"\(key)\" is not a string"))
        }
        guard let path = file.value else {
            return .failure(EntryProblem(label: label, reason: "entry \(index) has no \"file\""))
        }
        guard let typeName = type.value, !typeName.isEmpty else {
            return .failure(EntryProblem(label: label, reason: "entry \(index) has no \"type\""))
        }
        if let problem = pathProblem(path) {
            return .failure(EntryProblem(label: label, reason: "entry \(index): file \"\(path)\" \(problem)"))
        }
        let entryID = id.value ?? path
        guard !entryID.isEmpty else { return .failure(EntryProblem(label: label, reason: "entry \(index) has an empty id")) }
        return .success(
            UploadEntry(
                index: index, id: entryID, file: path, slot: UploadSlot(type: DocumentType(rawValue: typeName), side: side.value),
                originalDocumentId: original.value, dataSignature: signature.value))
    }

    /// Why `path` cannot name a file inside `documents/`, or `nil` when it can.
    static func pathProblem(_ path: String) -> String? {
        if path.isEmpty { return "is empty" }
        if path.hasPrefix("/") { return "is absolute" }
        if path.contains("\\") || path.utf8.contains(0) { return "contains a backslash or NUL" }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty || component == "." || component == ".." {
                return "has an empty, '.' or '..' component"
            }
        }
        return nil
    }

    private static func process(
        _ entry: UploadEntry, files: [String: [UInt8]], limit: Int, options: FitOptions,
        verifySignature: SignatureVerifier?
    ) -> UploadResult {
        let subject = "upload[\(entry.id)]"
        var results: [CheckResult] = []
        if entry.slot.type.isKnown {
            results.append(CheckResult(.imageDocumentType, .pass, "type \(entry.slot.type)", subject: subject))
        } else {
            results.append(
                CheckResult(
                    .imageDocumentType, .warn,
                    "type \"\(entry.slot.type)\" is not one of \(DocumentType.known.map(\.rawValue).joined(separator: ", ")); recorded as given",
                    subject: subject))
        }
        guard let bytes = files[entry.file] else {
            results.append(
                CheckResult(.imageManifest, .fail, "documents/\(entry.file) is not in the bundle", subject: subject))
            if entry.dataSignature != nil {
                results.append(CheckResult(.imageDataSignature, .unchecked, "the file is missing", subject: subject))
            }
            return UploadResult(
                subject: subject, entry: entry, fit: nil, checkResults: results, supersedes: nil, supersededBy: [],
                chain: [entry.id])
        }
        let fit = ImageLimiter.fit(bytes, limit: limit, options: options)
        results += fit.checkResults(subject: subject)
        results.append(signatureResult(entry, original: bytes, subject: subject, verify: verifySignature))
        return UploadResult(
            subject: subject, entry: entry, fit: fit, checkResults: results, supersedes: nil, supersededBy: [],
            chain: [entry.id])
    }

    private static func signatureResult(
        _ entry: UploadEntry, original: [UInt8], subject: String, verify: SignatureVerifier?
    ) -> CheckResult {
        guard let text = entry.dataSignature else {
            return CheckResult(.imageDataSignature, .skipped, "no dataSignature in the manifest entry", subject: subject)
        }
        guard text.utf8.count <= maxSignatureLength, let signature = decodeBase64(text), !signature.isEmpty else {
            return CheckResult(
                .imageDataSignature, .fail, "dataSignature is not base64 (standard or URL alphabet) of at most \(maxSignatureLength) characters",
                subject: subject)
        }
        let evidence = [
            Evidence("original.sha256", hexString(HashFunction.sha256.hash(original))),
            Evidence("signature.bytes", String(signature.count)),
        ]
        guard let verify else {
            return CheckResult(
                .imageDataSignature, .unchecked, "no scan-SDK key configured", subject: subject, evidence: evidence)
        }
        if verify(original, signature) {
            return CheckResult(
                .imageDataSignature, .pass, "dataSignature verifies over the original \(original.count) bytes",
                subject: subject, evidence: evidence)
        }
        return CheckResult(
            .imageDataSignature, .fail, "dataSignature does not verify over the original \(original.count) bytes",
            subject: subject, evidence: evidence)
    }

    /// Base64 in the standard (RFC 4648 §4) or URL-safe (§5) alphabet, padding optional but
    /// only at the end and only to a multiple of four; no whitespace; the unused bits of the
    /// last character must be zero (§3.5), so every byte string has one accepted spelling per
    /// alphabet and padding choice.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8)
        var padding = 0
        while symbols.last == UInt8(ascii: "=") {
            symbols.removeLast()
            padding += 1
        }
        if padding > 0 && (padding > 2 || (symbols.count + padding) % 4 != 0) { return nil }
        if symbols.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(symbols.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            let value: UInt32
            switch symbol {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(symbol - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(symbol - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(symbol - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            default: return nil
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return buffer == 0 ? out : nil  // leftover bits must be zero
    }

    // MARK: chains

    private static func resolveChains(_ result: inout UploadsResult, entries: [Int: UploadEntry]) {
        var positionOfID: [String: Int] = [:]
        for (position, entry) in entries { positionOfID[entry.id] = position }

        // Candidate links: re-upload position -> superseded position.
        var link: [Int: Int] = [:]
        for position in entries.keys.sorted() {
            guard let entry = entries[position], let target = entry.originalDocumentId else { continue }
            let subject = "upload[\(entry.id)]"
            guard let targetPosition = positionOfID[target] else {
                result.uploads[position].checkResults.append(
                    CheckResult(
                        .imageReuploadChain, .fail, "re-upload of \"\(target)\", which is not an upload of this manifest",
                        subject: subject))
                continue
            }
            guard let original = entries[targetPosition] else { continue }
            guard original.slot == entry.slot else {
                result.uploads[position].checkResults.append(
                    CheckResult(
                        .imageReuploadChain, .fail,
                        "re-upload of \"\(target)\" (\(original.slot)) changes the slot to \(entry.slot)", subject: subject))
                continue
            }
            link[position] = targetPosition
        }

        // Loops: following links from any upload must end at an upload that replaces nothing.
        var inLoop: Set<Int> = []
        for start in link.keys.sorted() where !inLoop.contains(start) {
            var path: [Int] = []
            var seen: Set<Int> = []
            var current = start
            while let next = link[current] {
                if seen.contains(current) { break }
                seen.insert(current)
                path.append(current)
                current = next
                if let loopStart = path.firstIndex(of: current) {
                    for member in path[loopStart...] { inLoop.insert(member) }
                    break
                }
            }
        }
        let cycles = inLoop.sorted().map { ($0, cycleDescription(from: $0, link: link, entries: entries)) }
        for (position, cycle) in cycles {
            guard let entry = entries[position] else { continue }
            result.uploads[position].checkResults.append(
                CheckResult(.imageReuploadChain, .fail, "re-upload chain loops: \(cycle)", subject: "upload[\(entry.id)]"))
            link[position] = nil
        }

        // Valid links: record both directions and the chains.
        var supersededBy: [Int: [Int]] = [:]
        for (from, to) in link { supersededBy[to, default: []].append(from) }
        for (to, froms) in supersededBy {
            let sorted = froms.sorted()
            result.uploads[to].supersededBy = sorted.compactMap { entries[$0]?.id }
        }
        for position in link.keys.sorted() {
            guard let entry = entries[position], let to = link[position], let original = entries[to] else { continue }
            var chain = [position]
            var cursor = position
            while let previous = link[cursor], chain.count <= entries.count {
                chain.append(previous)
                cursor = previous
            }
            let ids = chain.reversed().compactMap { entries[$0]?.id }
            result.uploads[position].supersedes = original.id
            result.uploads[position].chain = ids
            let siblings = (supersededBy[to] ?? []).filter { $0 != position }.compactMap { entries[$0]?.id }
            if siblings.isEmpty {
                result.uploads[position].checkResults.append(
                    CheckResult(
                        .imageReuploadChain, .pass, "supersedes \"\(original.id)\"; chain \(ids.joined(separator: " → "))",
                        subject: "upload[\(entry.id)]", evidence: [Evidence("chain", ids.joined(separator: ","))]))
            } else {
                result.uploads[position].checkResults.append(
                    CheckResult(
                        .imageReuploadChain, .warn,
                        "supersedes \"\(original.id)\", as do \(siblings.map { "\"\($0)\"" }.joined(separator: ", ")); the last in manifest order is current",
                        subject: "upload[\(entry.id)]", evidence: [Evidence("chain", ids.joined(separator: ","))]))
            }
        }

        // Current upload per slot: the last in manifest order not superseded by a valid link.
        for position in entries.keys.sorted() {
            guard let entry = entries[position], supersededBy[position] == nil else { continue }
            result.current[entry.slot] = entry.id
        }
    }

    private static func cycleDescription(from start: Int, link: [Int: Int], entries: [Int: UploadEntry]) -> String {
        var ids: [String] = []
        var cursor = start
        var steps = 0
        repeat {
            ids.append(entries[cursor]?.id ?? "?")
            guard let next = link[cursor] else { break }
            cursor = next
            steps += 1
        } while cursor != start && steps <= entries.count
        ids.append(entries[start]?.id ?? "?")
        return ids.joined(separator: " → ")
    }
}
