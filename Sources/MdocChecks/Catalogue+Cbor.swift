extension CheckID {
    /// The input is well-formed CBOR: no truncation, no trailing bytes, no reserved encodings, valid UTF-8 text, break codes only in indefinite items.
    package static let cborWellformed = CheckID("cbor.wellformed")
    /// The input stays within the decoder's named limits: nesting depth, item count, declared lengths no larger than the bytes present.
    package static let cborLimits = CheckID("cbor.limits")
    /// No map holds the same key twice.
    package static let cborDuplicateKeys = CheckID("cbor.duplicateKeys")
}

extension CheckCatalogue {
    static let cborFamily: [CheckDefinition] = [
        CheckDefinition(
            .cborWellformed, clause: "RFC 8949 §3, §5.3.1",
            "The input is well-formed CBOR: no truncation, no trailing bytes, no reserved encodings, valid UTF-8 text, break codes only in indefinite items."),
        CheckDefinition(
            .cborLimits, clause: "RFC 8949 §10; mdocverify limits",
            "The input stays within the decoder's named limits: nesting depth, item count, declared lengths no larger than the bytes present."),
        CheckDefinition(
            .cborDuplicateKeys, clause: "RFC 8949 §5.6",
            "No map holds the same key twice."),
    ]
}
