package import MdocCBOR
package import MdocChecks
package import MdocImaging
package import MdocModel

/// The engagement QR image (§8.2.2.3): `engagement.qr.decoded` when a QR code with an `mdoc:`
/// URI was found, or the failure that says why not (`engagement.image.*`,
/// `engagement.qr.notFound`, `engagement.qr.notMdoc`). Publishes the URI. The image is read by
/// the pipeline's service (zbar after libjpeg/libpng); without one, nothing is reported.
package struct EngagementImageCheck: Check {
    /// Longest text shown per code in `engagement.qr.notMdoc` details.
    static let maxListedSymbolLength = 80

    package init() {}

    package var ids: [CheckID] {
        [.engagementQrDecoded, .engagementQrNotFound, .engagementQrNotMdoc, .engagementImageEmpty, .engagementImageNotAnImage,
         .engagementImageTruncated, .engagementImageCorrupt, .engagementImageUnsupported, .engagementImageTooLarge]
    }
    package var scope: CheckScope { .transaction }
    package var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.engagementImage)]

    package func run(_ context: inout CheckContext) {
        guard let image = context.transaction.inputs.engagementImage, let read = context.services.readEngagementImage else { return }
        let result = read(image)
        context.report(Self.result(of: result))
        context.transaction.engagementURI = result.uri
    }

    /// The one result of reading an engagement image.
    package static func result(of read: EngagementImageResult) -> CheckResult {
        var header: [Evidence] = []
        if let info = read.info {
            header = [Evidence("format", info.format.rawValue), Evidence("dimensions", "\(info.width)x\(info.height)")]
        }
        if let error = read.error {
            let id: CheckID =
                switch error.code {
                case .empty: .engagementImageEmpty
                case .notAnImage: .engagementImageNotAnImage
                case .truncated: .engagementImageTruncated
                case .unsupported: .engagementImageUnsupported
                case .tooLarge, .tooManyPixels: .engagementImageTooLarge
                default: .engagementImageCorrupt
                }
            return CheckResult(id, .fail, error.reason, evidence: header)
        }
        if let uri = read.uri {
            let scale = "1/\(read.scaleDenominator ?? 1)"
            return CheckResult(
                .engagementQrDecoded, .pass, "mdoc: URI of \(uri.utf8.count) bytes decoded at scale \(scale)",
                evidence: header + [
                    Evidence("scale", scale), Evidence("symbols", String(read.symbols.count)),
                    Evidence("attempts", String(read.attempts.count)),
                ])
        }
        if read.symbols.isEmpty {
            let scales = read.attempts.map { "1/\($0.scaleDenominator)" }.joined(separator: ", ")
            return CheckResult(
                .engagementQrNotFound, .fail, "no QR code found (scales tried: \(scales.isEmpty ? "none" : scales))",
                evidence: header + [Evidence("attempts", String(read.attempts.count))])
        }
        let listed = read.symbols.map { symbol in
            let text = symbol.text ?? "<\(symbol.bytes.count) bytes, not UTF-8>"
            return text.count > maxListedSymbolLength ? String(text.prefix(maxListedSymbolLength)) + "…" : text
        }
        return CheckResult(
            .engagementQrNotMdoc, .fail,
            "\(read.symbols.count) QR code(s) found, none with an mdoc: URI: " + listed.map { "\"\($0)\"" }.joined(separator: ", "),
            evidence: header + [Evidence("symbols", String(read.symbols.count))])
    }
}

/// The device engagement (§8.2.1.1, §8.2.2.3): `engagement.uri` (an `mdoc:` URI of base64url
/// DeviceEngagement), the CBOR of DeviceEngagement, `engagement.structure`, `.version`,
/// `.cipherSuite`, `.deviceKey` (EDeviceKey) and `.retrievalMethods` (BLE options, Table 9).
/// Publishes the DeviceEngagement.
struct EngagementCheck: Check {
    var ids: [CheckID] {
        [.engagementURI, .engagementStructure, .engagementVersion, .engagementCipherSuite, .engagementDeviceKey,
         .engagementRetrievalMethods]
    }
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.engagementURI)]

    func run(_ context: inout CheckContext) {
        guard let uri = context.transaction.engagementURI else { return }
        let bytes: [UInt8]
        do {
            bytes = try DeviceEngagement.bytes(fromURI: uri)
        } catch {
            context.report(CheckResult(.engagementURI, .fail, "\(error)"))
            return
        }
        context.report(CheckResult(.engagementURI, .pass, "mdoc: URI, \(bytes.count) bytes of DeviceEngagement"))
        guard let item = CBORFailure.decode(
            bytes, options: context.settings.decoding, what: "DeviceEngagement", subject: "engagement", into: &context)
        else { return }
        context.transaction.deviceEngagement = Self.check(item, &context)
    }

    /// The `engagement.*` checks of a decoded DeviceEngagement.
    static func check(_ item: CBOR, _ context: inout CheckContext) -> DeviceEngagement? {
        let engagement: DeviceEngagement
        do {
            engagement = try DeviceEngagement(item)
        } catch {
            context.report(CheckResult(.engagementStructure, .fail, "\(error)", subject: "engagement"))
            return nil
        }
        var evidence: [Evidence] = []
        if !engagement.unknownKeys.isEmpty {
            evidence.append(Evidence("unknownKeys", engagement.unknownKeys.joined(separator: ",")))
        }
        context.report(CheckResult(.engagementStructure, .pass, "DeviceEngagement map", subject: "engagement", evidence: evidence))
        if engagement.version.hasPrefix("1.") {
            context.report(CheckResult(.engagementVersion, .pass, "version \(engagement.version)", subject: "engagement"))
        } else {
            context.report(CheckResult(
                .engagementVersion, .fail, "version \"\(engagement.version)\" is not 1.x", subject: "engagement"))
        }
        if engagement.cipherSuite == 1 {
            context.report(CheckResult(.engagementCipherSuite, .pass, "cipher suite 1", subject: "engagement"))
        } else {
            context.report(CheckResult(
                .engagementCipherSuite, .fail, "cipher suite \(engagement.cipherSuite) is not 1", subject: "engagement"))
        }
        do {
            let key = try engagement.eDeviceKey.publicKey()
            context.report(CheckResult(.engagementDeviceKey, .pass, "\(key.curve) EDeviceKey", subject: "engagement"))
        } catch {
            context.report(CheckResult(
                .engagementDeviceKey, .fail, "EDeviceKey is not a valid public key: \(error)", subject: "engagement"))
        }
        var problems: [String] = []
        var described: [String] = []
        var methodEvidence: [Evidence] = []
        for method in engagement.retrievalMethods {
            described.append("\(method.typeName) v\(method.version)")
            if method.type == 2 {
                problems += DeviceEngagement.bleProblems(method.options)
                let unknown = DeviceEngagement.unknownBLEOptionKeys(method.options)
                if !unknown.isEmpty { methodEvidence.append(Evidence("unknownBLEOptions", unknown.joined(separator: ","))) }
            }
        }
        if engagement.retrievalMethods.isEmpty {
            context.report(CheckResult(
                .engagementRetrievalMethods, .skipped, "no device retrieval method (server retrieval or NFC only)",
                subject: "engagement"))
        } else if problems.isEmpty {
            context.report(CheckResult(
                .engagementRetrievalMethods, .pass, described.joined(separator: ", "), subject: "engagement",
                evidence: methodEvidence))
        } else {
            context.report(CheckResult(
                .engagementRetrievalMethods, .fail, problems.joined(separator: "; "), subject: "engagement",
                evidence: methodEvidence))
        }
        return engagement
    }
}
