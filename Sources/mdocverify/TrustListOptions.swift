import ArgumentParser
import MdocPipeline

/// The VICALs and their providers' roots (18013-5 Annex C), of `verify` and `trust show`.
struct VicalOptions: ParsableArguments {
    @Option(name: .long, help: "A VICAL (COSE_Sign1): its IACAs are trusted for the docTypes it lists. Repeatable; *.vical files of --trust are read too.")
    var vical: [String] = []

    @Option(name: .customLong("vical-anchor"), help: "The VICAL provider's root certificate (PEM or DER). Repeatable.")
    var vicalAnchor: [String] = []
}

/// The signed lists and status tokens of `verify` (18013-5 Annex C; second edition Annex F and
/// §12.3.6).
struct TrustListOptions: ParsableArguments {
    @OptionGroup var vicals: VicalOptions

    @Option(name: .long, help: "A RICAL: its certificates are reader roots for readerAuth. Repeatable.")
    var rical: [String] = []

    @Option(name: .customLong("rical-anchor"), help: "The RICAL provider's root certificate (PEM or DER). Repeatable.")
    var ricalAnchor: [String] = []

    @Option(name: .long, help: "Folder of status and identifier list tokens (CWT, as fetched). Default: <trust>/status when it exists.")
    var status: String?

    func validate() throws {
        if !rical.isEmpty && ricalAnchor.isEmpty {
            throw ValidationError("a RICAL is trusted only through its provider's root: give --rical-anchor CERT")
        }
        if !vicals.vical.isEmpty && vicals.vicalAnchor.isEmpty {
            throw ValidationError("a VICAL is trusted only through its provider's root: give --vical-anchor CERT")
        }
    }

    func apply(to configuration: inout RunConfiguration) {
        configuration.vicalPaths = vicals.vical
        configuration.vicalAnchorPaths = vicals.vicalAnchor
        configuration.ricalPaths = rical
        configuration.ricalAnchorPaths = ricalAnchor
        configuration.statusDirectory = status
    }
}
