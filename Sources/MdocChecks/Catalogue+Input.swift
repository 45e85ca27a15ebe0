extension CheckID {
    /// The input could be read.
    public static let inputReadable = CheckID("input.readable")
}

extension CheckCatalogue {
    static let inputFamily: [CheckDefinition] = [
        CheckDefinition(
            .inputReadable, clause: "mdocverify",
            "The input file or bundle exists, can be read and stays within the input limits."),
    ]
}
