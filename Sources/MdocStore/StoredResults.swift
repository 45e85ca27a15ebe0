import Foundation
import MdocCBOR
import MdocChecks

/// The CBOR (RFC 8949) values the store keeps in BLOB columns (docs/schema.md, "CBOR columns"):
///
///     results  = [* result]                                  ; check_results.results
///     result   = [check_id: tstr, status: tstr, instant: tstr / null,
///                 subject: tstr, detail: tstr, evidence: [* [key: tstr, value: tstr]]]
///     elements = [* [idx: uint, [* element]]]                ; disclosure.elements, by document
///     element  = [namespace: tstr, identifier: tstr, digest_id: uint / null,
///                 digest: bstr / null, value_json: tstr / null]
///     inputs   = [* [path: tstr, sha256: bstr]]               ; txn.inputs
///
/// Written in deterministic encoding, straight into one buffer; read back with MdocCBOR's
/// decoder, which refuses anything malformed (``StoreError/Code/corruptRow``).
package enum StoredResults {
    // MARK: Check results

    static func encode(_ results: [CheckResult]) -> Data {
        var out: [UInt8] = []
        // Room for a usual result (id, status, a short detail, a little evidence): one allocation
        // for most lists, regrown for long details or evidence.
        out.reserveCapacity(16 + results.count * 128)
        CBORNode.appendHead(major: 4, UInt64(results.count), to: &out)
        // Read in place: a result copied out of the array retains each of its texts.
        results.withUnsafeBufferPointer { results in
            for index in results.indices {
                out.append(arrayOf6)
                text(results[index].id.rawValue, &out)
                text(results[index].status.rawValue, &out)
                if let instant = results[index].instant { text(instant.rawValue, &out) } else { out.append(null) }
                text(results[index].subject, &out)
                text(results[index].detail, &out)
                results[index].evidence.withUnsafeBufferPointer { evidence in
                    CBORNode.appendHead(major: 4, UInt64(evidence.count), to: &out)
                    for item in evidence.indices {
                        out.append(arrayOf2)
                        text(evidence[item].key, &out)
                        text(evidence[item].value, &out)
                    }
                }
            }
        }
        return Data(out)
    }

    /// The one-byte heads (RFC 8949 §3: arguments under 24) of the fixed-length arrays above,
    /// and the simple value null.
    private static let arrayOf6: UInt8 = 0x86
    private static let arrayOf5: UInt8 = 0x85
    private static let arrayOf2: UInt8 = 0x82
    private static let null: UInt8 = 0xf6

    package static func decodeResults(_ data: Data, verificationID: Int64) throws -> [CheckResult] {
        let corrupt = StoreError(.corruptRow, "check_results.results of verification \(verificationID) is not an array of results")
        guard let items = try? CBOR(decoding: [UInt8](data)).array else { throw corrupt }
        return try items.map { item in
            guard let fields = item.array, fields.count == 6, let id = fields[0].text, let statusText = fields[1].text,
                let status = CheckStatus(rawValue: statusText), let subject = fields[3].text, let detail = fields[4].text,
                let pairs = fields[5].array
            else { throw corrupt }
            var instant: CheckInstant?
            if !fields[2].isNull {
                guard let text = fields[2].text, let value = CheckInstant(rawValue: text) else { throw corrupt }
                instant = value
            }
            let evidence = try pairs.map { pair -> Evidence in
                guard let pair = pair.array, pair.count == 2, let key = pair[0].text, let value = pair[1].text else {
                    throw corrupt
                }
                return Evidence(key, value)
            }
            return CheckResult(CheckID(id), status, detail, subject: subject, instant: instant, evidence: evidence)
        }
    }

    // MARK: Disclosed elements

    /// The elements of each document, by document index; `nil` when no document has any.
    static func encode(elementsOf documents: [DocumentSummary]) -> Data? {
        guard documents.contains(where: { !$0.elements.isEmpty }) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(documents.reduce(8) { $0 + $1.elements.count * 96 })
        CBORNode.appendHead(major: 4, UInt64(documents.count), to: &out)
        for document in documents {
            out.append(arrayOf2)
            CBORNode.appendHead(major: 0, UInt64(document.index), to: &out)
            CBORNode.appendHead(major: 4, UInt64(document.elements.count), to: &out)
            for element in document.elements {
                out.append(arrayOf5)
                text(element.namespace, &out)
                text(element.identifier, &out)
                if let digestID = element.digestID { CBORNode.appendHead(major: 0, digestID, to: &out) } else { out.append(null) }
                if let digest = element.digest {
                    CBORNode.appendHead(major: 2, UInt64(digest.count), to: &out)
                    out.append(contentsOf: digest)
                } else {
                    out.append(null)
                }
                if let value = element.valueJSON { text(value, &out) } else { out.append(null) }
            }
        }
        return Data(out)
    }

    /// The elements of `data`, by document index.
    static func decodeElements(_ data: Data, verificationID: Int64) throws -> [Int: [ElementSummary]] {
        let corrupt = StoreError(.corruptRow, "disclosure.elements of verification \(verificationID) is not an array of documents")
        guard let documents = try? CBOR(decoding: [UInt8](data)).array else { throw corrupt }
        var result: [Int: [ElementSummary]] = [:]
        for document in documents {
            guard let pair = document.array, pair.count == 2, let number = pair[0].uint, let index = Int(exactly: number),
                let items = pair[1].array
            else { throw corrupt }
            var elements: [ElementSummary] = []
            elements.reserveCapacity(items.count)
            for item in items {
                guard let element = Self.element(item) else { throw corrupt }
                elements.append(element)
            }
            result[index] = elements
        }
        return result
    }

    /// One `element` array, or `nil` when it does not have the documented shape.
    private static func element(_ item: CBOR) -> ElementSummary? {
        guard let fields = item.array, fields.count == 5, let namespace = fields[0].text, let identifier = fields[1].text
        else { return nil }
        var digestID: UInt64?
        if !fields[2].isNull {
            guard let value = fields[2].uint else { return nil }
            digestID = value
        }
        var digest: [UInt8]?
        if !fields[3].isNull {
            guard let bytes = fields[3].bytes else { return nil }
            digest = Array(bytes)
        }
        var valueJSON: String?
        if !fields[4].isNull {
            guard let text = fields[4].text else { return nil }
            valueJSON = text
        }
        return ElementSummary(
            namespace: namespace, identifier: identifier, digestID: digestID, digest: digest, valueJSON: valueJSON)
    }

    // MARK: Input files

    static func encode(inputs: [InputHash]) throws -> Data? {
        guard !inputs.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(8 + inputs.count * 80)
        CBORNode.appendHead(major: 4, UInt64(inputs.count), to: &out)
        for input in inputs {
            try input.digest.check("the SHA-256 of input file \(input.path)")
            out.append(arrayOf2)
            text(input.path, &out)
            CBORNode.appendHead(major: 2, UInt64(input.digest.bytes.count), to: &out)
            out.append(contentsOf: input.digest.bytes)
        }
        return Data(out)
    }

    static func decodeInputs(_ data: Data) throws -> [InputHash] {
        let corrupt = StoreError(.corruptRow, "txn.inputs is not an array of [path, sha256]")
        guard let items = try? CBOR(decoding: [UInt8](data)).array else { throw corrupt }
        return try items.map { item in
            guard let pair = item.array, pair.count == 2, let path = pair[0].text, let hash = pair[1].bytes else { throw corrupt }
            return InputHash(path: path, digest: SHA256Digest(bytes: Array(hash)))
        }
    }

    private static func text(_ value: String, _ out: inout [UInt8]) { CBORNode.appendText(value, to: &out) }
}
