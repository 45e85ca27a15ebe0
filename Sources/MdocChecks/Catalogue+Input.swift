extension CheckID {
    /// The input could be read.
    package static let inputReadable = CheckID("input.readable")
    /// transaction.json parses and its fields have the documented types.
    package static let inputMetadata = CheckID("input.metadata")
    /// The input (folder or archive) passed the ingest limits: no traversal, links, bombs or corruption.
    package static let inputArchive = CheckID("input.archive")
}

extension CheckCatalogue {
    static let inputFamily: [CheckDefinition] = [
        CheckDefinition(
            .inputReadable, clause: "mdocverify",
            "The input file or bundle exists, can be read and stays within the input limits."),
        CheckDefinition(
            .inputMetadata, clause: "mdocverify transaction bundle (transaction.json)",
            "transaction.json is valid JSON with id, capturedAt (RFC 3339), source and consent of the documented types."),
        CheckDefinition(
            .inputArchive, clause: "mdocverify ingest limits",
            "The archive or folder holds no absolute or traversing paths, links, special files, bombs or corrupt data."),
    ]
}
