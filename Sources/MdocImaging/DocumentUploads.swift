import Foundation
internal import MdocCrypto

/// The kind of identity document an upload shows. An open set: unknown values from a manifest
/// are kept (and reported as `image.documentType` warnings).
package struct DocumentType: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    package static let idCard = DocumentType(rawValue: "idCard")
    package static let passport = DocumentType(rawValue: "passport")
    package static let driversLicense = DocumentType(rawValue: "driversLicense")
    package static let residencePermit = DocumentType(rawValue: "residencePermit")
    package static let other = DocumentType(rawValue: "other")
    /// The types the onboarding upload rule defines.
    package static let known: [DocumentType] = [.idCard, .passport, .driversLicense, .residencePermit, .other]

    package var isKnown: Bool { Self.known.contains(self) }
    package var description: String { rawValue }
    package static func < (lhs: DocumentType, rhs: DocumentType) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A (type, side) pair: the place an upload fills, such as the front of a driving licence.
package struct UploadSlot: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    package var type: DocumentType
    /// "front", "back", ... or `nil` for single-sided documents.
    package var side: String?

    package init(type: DocumentType, side: String?) {
        self.type = type
        self.side = side
    }

    package var description: String { side.map { "\(type)/\($0)" } ?? type.rawValue }
    package static func < (lhs: UploadSlot, rhs: UploadSlot) -> Bool { lhs.description < rhs.description }
}

/// One well-formed entry of `documents/manifest.json`.
package struct UploadEntry: Sendable, Hashable, Codable {
    /// Position in the manifest array, from 0.
    package var index: Int
    /// The entry's `id`, or its `file` when it has none.
    package var id: String
    /// Path relative to the `documents/` folder.
    package var file: String
    package var slot: UploadSlot
    /// The id of the upload this one replaces (a re-upload).
    package var originalDocumentId: String?
    /// The scan SDK's signature over the original bytes, as written (base64, standard or URL alphabet).
    package var dataSignature: String?
}

/// What processing one manifest entry produced.
package struct UploadResult: Sendable, Hashable {
    /// The entry's id, else its file, else `#<index>`: `upload[<label>]` in reports.
    package var label: String
    /// `nil` when the manifest entry itself is malformed (``entryProblem`` says why).
    package var entry: UploadEntry?
    /// Why the entry is not a usable upload (malformed, or an id used by an earlier entry).
    package var entryProblem: String?
    /// The entry names a file the bundle does not have.
    package var fileMissing = false
    /// `nil` when the entry is malformed or its file is missing.
    package var fit: FitOutcome?
    /// What came of the entry's `dataSignature`.
    package var signature: SignatureOutcome = .absent
    /// What came of the entry's re-upload link, when it names an upload it replaces.
    package var link: LinkOutcome?
    /// The upload this one validly supersedes.
    package var supersedes: String?
    /// The uploads that validly supersede this one.
    package var supersededBy: [String] = []
    /// The re-upload chain ending here, from the first upload: `[front-1, front-2, front-3]`;
    /// just `[id]` for an upload that replaces nothing (or whose link is broken).
    package var chain: [String] = []

    /// What came of a `dataSignature`.
    package enum SignatureOutcome: Sendable, Hashable {
        /// The entry has none.
        case absent
        /// The entry has one, but its file is missing.
        case fileMissing
        /// Not base64 of at most ``DocumentUploads/maxSignatureLength`` characters.
        case malformed
        /// Checked (`verified`), or not for want of a scan-SDK key (`verified == nil`), over the
        /// original of `originalBytes` bytes whose SHA-256 is `originalSHA256`.
        case checked(verified: Bool?, originalSHA256: String, originalBytes: Int, signatureBytes: Int)
    }

    /// What came of a re-upload link (`originalDocumentId`).
    package enum LinkOutcome: Sendable, Hashable {
        /// It names no upload of the manifest.
        case dangling(target: String)
        /// It names an upload of another type or side.
        case changesSlot(target: String, from: UploadSlot, to: UploadSlot)
        /// Following the links from here comes back here (`cycle`: "a → b → a").
        case loops(cycle: String)
        /// It validly supersedes `original`; `siblings` also supersede it.
        case supersedes(original: String, chain: [String], siblings: [String])
    }
}

/// What ``DocumentUploads/process(manifest:files:limit:options:verifySignature:)`` produced.
package struct UploadsResult: Sendable, Hashable {
    /// Why the manifest as a whole could not be read (nothing else was processed).
    package var manifestProblem: ManifestProblem?
    /// The number of entries when above ``DocumentUploads/maxEntries`` (only those were processed).
    package var entryCountOverLimit: Int?
    /// Files of `documents/` that no entry lists (ignored).
    package var unlistedFiles: [String] = []
    /// One per manifest entry, in manifest order.
    package var uploads: [UploadResult] = []
    /// The current upload id for each slot: the last upload in manifest order that no valid
    /// re-upload supersedes. It is current even when its own image was rejected.
    package var current: [UploadSlot: String] = [:]

    /// Why a manifest could not be read.
    package enum ManifestProblem: Sendable, Hashable {
        case tooLarge(bytes: Int)
        case notJSON
        case notAnArray
    }

    /// The result for upload `id`.
    package func upload(_ id: String) -> UploadResult? { uploads.first { $0.entry?.id == id } }
}

/// Document-scan uploads of a transaction bundle (`documents/manifest.json` and the files it
/// names), under the onboarding upload requirements; ISO/IEC 18013-5 does not cover them. This
/// reports what it found; the `image.*` checks of MdocVerification judge it.
///
/// Manifest: a JSON array of objects
/// `{"file": "front.jpg", "type": "driversLicense", "side": "front", "originalDocumentId": "…"?,
/// "dataSignature": "<base64>"?, "id": "…"?}`; `id` defaults to `file`.
///
/// For each entry: the file is fitted under `limit` (``ImageLimiter``), the type is checked
/// against ``DocumentType/known`` (unknown types warn), the `dataSignature` is verified over the
/// ORIGINAL bytes by the caller's hook, and re-upload links are resolved: a re-upload supersedes
/// the upload it names, which must exist, have the same type and side, and not lead back to the
/// re-upload. Several re-uploads naming the same upload are allowed with
/// a warning; the last in manifest order is current.
///
/// Does NOT read files (the caller passes them), write outputs (see ``AtomicFile``), or know
/// which signature scheme the scan SDK uses (the hook does).
package enum DocumentUploads {
    /// Largest manifest accepted: 1 MiB.
    package static let maxManifestBytes = 1 << 20
    /// Most entries processed; further entries are reported and ignored.
    package static let maxEntries = 1000
    /// Longest `dataSignature` text accepted (base64 characters).
    package static let maxSignatureLength = 16 * 1024

    /// Verifies the scan SDK's signature over the original upload bytes.
    package typealias SignatureVerifier = @Sendable (_ original: [UInt8], _ signature: [UInt8]) -> Bool

    package static func process(
        manifest: [UInt8], files: [String: [UInt8]], limit: Int = ImageLimiter.defaultLimit,
        options: FitOptions = .default, verifySignature: SignatureVerifier?
    ) -> UploadsResult {
        var result = UploadsResult()
        guard manifest.count <= maxManifestBytes else {
            result.manifestProblem = .tooLarge(bytes: manifest.count)
            return result
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(manifest), options: [])
        } catch {
            result.manifestProblem = .notJSON
            return result
        }
        guard let array = parsed as? [Any] else {
            result.manifestProblem = .notAnArray
            return result
        }
        if array.count > maxEntries { result.entryCountOverLimit = array.count }

        // 1. Entries.
        var seenIDs: Set<String> = []
        var entries: [Int: UploadEntry] = [:]  // position in result.uploads -> valid entry
        for (index, element) in array.prefix(maxEntries).enumerated() {
            switch parseEntry(element, index: index) {
            case .failure(let problem):
                result.uploads.append(UploadResult(label: problem.label, entryProblem: problem.reason))
            case .success(let entry):
                if seenIDs.contains(entry.id) {
                    result.uploads.append(UploadResult(
                        label: entry.id, entryProblem: "entry \(index): id \"\(entry.id)\" is used by an earlier entry"))
                    continue
                }
                seenIDs.insert(entry.id)
                entries[result.uploads.count] = entry
                result.uploads.append(process(entry, files: files, limit: limit, options: options, verifySignature: verifySignature))
            }
        }

        // 2. Files nobody lists: recorded, not fatal.
        let listed = Set(entries.values.map(\.file))
        result.unlistedFiles = files.keys.sorted().filter { !listed.contains($0) && $0 != "manifest.json" }

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
        var result = UploadResult(label: entry.id, entry: entry, chain: [entry.id])
        guard let bytes = files[entry.file] else {
            result.fileMissing = true
            if entry.dataSignature != nil { result.signature = .fileMissing }
            return result
        }
        result.fit = ImageLimiter.fit(bytes, limit: limit, options: options)
        result.signature = signatureOutcome(entry, original: bytes, verify: verifySignature)
        return result
    }

    private static func signatureOutcome(
        _ entry: UploadEntry, original: [UInt8], verify: SignatureVerifier?
    ) -> UploadResult.SignatureOutcome {
        guard let text = entry.dataSignature else { return .absent }
        guard text.utf8.count <= maxSignatureLength, let signature = decodeBase64(text), !signature.isEmpty else {
            return .malformed
        }
        return .checked(
            verified: verify.map { $0(original, signature) }, originalSHA256: hexString(HashFunction.sha256.hash(original)),
            originalBytes: original.count, signatureBytes: signature.count)
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
            guard let targetPosition = positionOfID[target] else {
                result.uploads[position].link = .dangling(target: target)
                continue
            }
            guard let original = entries[targetPosition] else { continue }
            guard original.slot == entry.slot else {
                result.uploads[position].link = .changesSlot(target: target, from: original.slot, to: entry.slot)
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
            guard entries[position] != nil else { continue }
            result.uploads[position].link = .loops(cycle: cycle)
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
            guard entries[position] != nil, let to = link[position], let original = entries[to] else { continue }
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
            result.uploads[position].link = .supersedes(original: original.id, chain: ids, siblings: siblings)
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
