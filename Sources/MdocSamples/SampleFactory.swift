import Foundation
import MdocCrypto
import MdocCBOR
import MdocCOSE
import MdocImaging
import MdocModel
import MdocTime

/// One generated transaction, in memory.
package struct SampleTransaction: Sendable {
    /// `tx-00001` …: the folder name and `transaction.json`'s id.
    package var id: String
    /// Bundle-relative paths and contents, in the order they are written.
    package var files: [(path: String, bytes: [UInt8])]
    package var expectation: SampleExpectation

    /// The files as a dictionary (what a `TransactionBundle` takes).
    package var fileMap: [String: [UInt8]] {
        Dictionary(files.map { ($0.path, $0.bytes) }, uniquingKeysWith: { _, last in last })
    }
}

/// What the verifier must conclude about one transaction (one entry of `expected.json`).
package struct SampleExpectation: Sendable, Equatable, Codable {
    package var transaction: String
    /// The ``SampleDefect`` planted, or nil.
    package var defect: String?
    /// The check ids that must fail, and no other (sorted).
    package var expectedFailures: [String]
    /// The verdict at the verification time: `valid` or `invalid`.
    package var expectedVerdict: String
    /// Whether the consent has expired (adds `consent.window`).
    package var consentExpired: Bool
    /// The issuing authority's curve.
    package var curve: String
    /// `signature` or `mac`.
    package var deviceAuth: String

    enum CodingKeys: String, CodingKey {
        case transaction, defect, expectedFailures, expectedVerdict, consentExpired, curve, deviceAuth
    }

    package init(
        transaction: String, defect: String?, expectedFailures: [String], expectedVerdict: String, consentExpired: Bool,
        curve: String, deviceAuth: String
    ) {
        self.transaction = transaction
        self.defect = defect
        self.expectedFailures = expectedFailures
        self.expectedVerdict = expectedVerdict
        self.consentExpired = consentExpired
        self.curve = curve
        self.deviceAuth = deviceAuth
    }

    /// Writes `"defect": null` rather than leaving the key out.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transaction, forKey: .transaction)
        if let defect { try container.encode(defect, forKey: .defect) } else { try container.encodeNil(forKey: .defect) }
        try container.encode(expectedFailures, forKey: .expectedFailures)
        try container.encode(expectedVerdict, forKey: .expectedVerdict)
        try container.encode(consentExpired, forKey: .consentExpired)
        try container.encode(curve, forKey: .curve)
        try container.encode(deviceAuth, forKey: .deviceAuth)
    }

    /// Reads `expected.json` (a JSON array of expectations).
    package static func decodeList(_ json: [UInt8]) throws -> [SampleExpectation] {
        try JSONDecoder().decode([SampleExpectation].self, from: Data(json))
    }
}

/// The trust material of a sample set: every IACA certificate a verifier must trust, and a CRL
/// per IACA (empty, or revoking the DS of the `revokedDS` defect).
package struct SampleTrust: Sendable {
    package var anchors: [Certificate]
    package var crls: [CRL]
    /// File names and PEM contents, as written to the trust folder.
    package var files: [(name: String, bytes: [UInt8])]
}

/// Makes the transactions of a ``SampleGenerator`` one at a time, in memory (the generator
/// writes them; the benchmark and tests use them directly). Holds the issuing authorities,
/// created on first use; not thread-safe.
package final class SampleFactory {
    package let options: SampleGenerator
    /// ``SampleGenerator/verificationTime`` truncated to whole seconds.
    package let verificationTime: Date
    /// Per transaction (index − 1): 0 = nothing planted, 1...n = defect n − 1, ``expiredMark``.
    private var marks: [UInt8]
    private static let expiredMark: UInt8 = 255
    private var authorities: [String: AuthorityEntry] = [:]
    private var authorityOrder: [String] = []
    private let idWidth: Int

    static let day: TimeInterval = 86_400
    /// Capture times fall in the 180 days before the verification time.
    package static let captureWindowDays = 180
    static let namespace = "org.iso.18013.5.1"
    static let docType = "org.iso.18013.5.1.mDL"
    static let sources = ["kiosk-01", "kiosk-02", "kiosk-03", "kiosk-04", "kiosk-05", "central"]
    static let scopes = [["mdl.identity"], ["mdl.identity", "mdl.age"], ["mdl.age"], ["mdl.identity", "mdl.driving"]]

    struct AuthorityEntry {
        let authority: IssuingAuthority
        let inTrust: Bool
        let revoked: [(serialHex: String, date: Date)]
        let slug: String
    }

    package init(_ options: SampleGenerator) throws(SampleError) {
        try options.validateOptions()
        self.options = options
        self.verificationTime = Date(timeIntervalSince1970: options.verificationTime.timeIntervalSince1970.rounded(.down))
        self.idWidth = max(5, String(options.count).count)

        // Which transactions get a defect, and which an expired consent: a seeded shuffle.
        var rng = SampleRandom(seed: options.seed, label: "plan")
        let count = options.count
        let defective = min(count, Int((Double(count) * options.invalidShare).rounded()))
        let expired = min(count - defective, Int((Double(count) * options.expiredConsentShare).rounded()))
        let order = rng.shuffled(Array(0..<count))
        let defects = SampleDefect.allCases
        let start = rng.below(defects.count)
        var marks = [UInt8](repeating: 0, count: count)
        for (n, index) in order.prefix(defective).sorted().enumerated() {
            marks[index] = UInt8(1 + (start + n) % defects.count)
        }
        for index in order.dropFirst(defective).prefix(expired) { marks[index] = Self.expiredMark }
        self.marks = marks
    }

    /// The id of transaction `index` (1-based): `tx-00001` (``SampleGenerator/idPrefix``).
    package func id(at index: Int) -> String {
        let digits = String(index)
        return options.idPrefix + String(repeating: "0", count: max(0, idWidth - digits.count)) + digits
    }

    /// The defect planted in transaction `index` (1-based), if any.
    package func defect(at index: Int) -> SampleDefect? {
        guard index >= 1, index <= marks.count else { return nil }
        let mark = marks[index - 1]
        guard mark != 0, mark != Self.expiredMark else { return nil }
        let all = SampleDefect.allCases
        let position = Int(mark) - 1
        return position < all.count ? all[position] : nil
    }

    func consentExpired(at index: Int) -> Bool {
        index >= 1 && index <= marks.count && marks[index - 1] == Self.expiredMark
    }

    func curve(at index: Int) -> Curve {
        let curves = options.curves
        return curves[(index - 1) % curves.count]  // validateOptions: curves is not empty
    }

    // MARK: Authorities

    /// The authority variant a defect needs: its own (certificate defects, revocation, an
    /// impostor for `dsNotChained`) or the curve's main one.
    static func variant(for defect: SampleDefect?) -> String {
        guard let defect, defect.needsOwnAuthority || defect == .revokedDS else { return "main" }
        return defect.rawValue
    }

    func authority(curve: Curve, defect: SampleDefect?) throws(SampleError) -> IssuingAuthority {
        let variant = Self.variant(for: defect)
        let key = "\(curve.name)/\(variant)"
        if let entry = authorities[key] { return entry.authority }
        let v = verificationTime
        var profile = IssuingAuthority.Profile(notBefore: v.addingTimeInterval(-400 * Self.day))
        profile.dsNotBefore = v.addingTimeInterval(-300 * Self.day)
        profile.dsValidityDays = 365
        if let defect, defect.needsOwnAuthority { defect.apply(to: &profile, verificationTime: v) }
        // The impostor of dsNotChained has the main authority's name: only the keys differ.
        let name = (variant == "main" || defect == .dsNotChained) ? "Utopia \(curve.name)" : "Utopia \(curve.name) \(variant)"
        let label = "authority/\(curve.name)/\(variant)"
        var serials = SampleRandom(seed: options.seed, label: label + "/serials")
        let authority: IssuingAuthority
        do {
            authority = try IssuingAuthority(
                curve: curve, profile: profile, name: name,
                iacaKey: try SampleKeys.derive(curve: curve, seed: options.seed, label: label + "/iaca"),
                dsKey: try SampleKeys.derive(curve: curve, seed: options.seed, label: label + "/ds"),
                iacaSerial: Self.serial(&serials), dsSerial: Self.serial(&serials))
        } catch let error as SampleError {
            throw error
        } catch {
            throw SampleError(.cryptoFailed, "cannot make the \(curve) sample authority (\(variant)): \(error)")
        }
        let revoked = defect == .revokedDS ? [(authority.ds.serialNumberHex, v.addingTimeInterval(-5 * Self.day))] : []
        let slug = variant == "main" ? curve.name : "\(curve.name)-\(variant)"
        authorities[key] = AuthorityEntry(authority: authority, inTrust: defect != .dsNotChained, revoked: revoked, slug: slug)
        authorityOrder.append(key)
        return authority
    }

    /// A positive 16-byte serial number without a leading zero byte (RFC 5280 §4.1.2.2).
    static func serial(_ rng: inout SampleRandom) -> [UInt8] {
        var bytes = rng.bytes(16)
        bytes[0] = (bytes[0] & 0x7f) | 0x01
        return bytes
    }

    /// Every IACA a verifier of these transactions must trust, with its CRL (thisUpdate one day
    /// before the verification time, nextUpdate 30 days after). Creates the authorities the
    /// planned transactions need that were not used yet, so it may be called before or after
    /// making them.
    package func trustMaterial() throws(SampleError) -> SampleTrust {
        for curve in options.curves { _ = try authority(curve: curve, defect: nil) }
        for position in marks.indices {
            if let defect = defect(at: position + 1) { _ = try authority(curve: curve(at: position + 1), defect: defect) }
        }
        var trust = SampleTrust(anchors: [], crls: [], files: [])
        let v = verificationTime
        for key in authorityOrder {
            guard let entry = authorities[key], entry.inTrust else { continue }
            let crl: CRL
            do {
                crl = try entry.authority.crl(
                    revoking: entry.revoked, thisUpdate: v.addingTimeInterval(-Self.day), nextUpdate: v.addingTimeInterval(30 * Self.day))
            } catch {
                throw SampleError(.cryptoFailed, "cannot sign the CRL of \(entry.slug): \(error)")
            }
            trust.anchors.append(entry.authority.iaca)
            trust.crls.append(crl)
            trust.files.append(("iaca-\(entry.slug).pem", Array(entry.authority.iaca.pem.utf8)))
            trust.files.append(("iaca-\(entry.slug).crl", Array(crl.pem.utf8)))
        }
        return trust
    }

    /// The status list token of ``SampleGenerator/statusListURI``, one value per transaction
    /// (0 valid, 1 revoked, 2 suspended; more values than transactions are entries no MSO names),
    /// signed by a status signer its IACA issues. The transactions' authority must be one: one
    /// curve, no defect with an authority of its own.
    package func statusToken(values: [UInt8], issuedAt: Date, validFor seconds: TimeInterval) throws(SampleError) -> [UInt8] {
        guard let uri = options.statusListURI else { throw SampleError(.invalidOption, "no status list uri was given") }
        let authority = try authority(curve: options.curves[0], defect: nil)  // validateOptions: curves is not empty
        do {
            let signer = try ListSigner(
                issuedBy: authority.iaca, issuerKey: authority.iacaKey, name: "\(authority.iaca.subject.commonName ?? "Utopia") Status",
                notBefore: issuedAt.addingTimeInterval(-Self.day), validityDays: 365)
            let bits = values.contains { $0 > 1 } ? 2 : 1
            return try SampleStatusToken(uri: uri, issuedAt: issuedAt, validFor: seconds, content: .statusList(bits: bits, values: values))
                .signed(by: signer)
        } catch let error as SampleError {
            throw error
        } catch {
            throw SampleError(.cryptoFailed, "cannot sign the status list: \(error)")
        }
    }

    // MARK: Transactions

    /// Makes transaction `index` (1 ... count).
    package func transaction(at index: Int) throws(SampleError) -> SampleTransaction {
        guard index >= 1, index <= marks.count else {
            throw SampleError(.invalidOption, "transaction \(index) is outside 1...\(marks.count)")
        }
        do {
            return try make(index)
        } catch let error as SampleError {
            throw error
        } catch {
            throw SampleError(.cryptoFailed, "\(id(at: index)): \(error)")
        }
    }

    private func make(_ index: Int) throws -> SampleTransaction {
        let id = id(at: index)
        let v = verificationTime
        let curve = curve(at: index)
        let defect = defect(at: index)
        let consentExpired = consentExpired(at: index)
        var rng = SampleRandom(seed: options.seed, label: "tx/\(index)")
        let authority = try authority(curve: curve, defect: defect)

        // When: captured in the window before v; the MSO signed 1–60 days before the capture.
        let capturedAt = v.addingTimeInterval(-Double(rng.int(in: 3600...(Self.captureWindowDays * 86_400))))
        let signed = capturedAt.addingTimeInterval(-Double(rng.int(in: 86_400...(60 * 86_400))))
        let holder = try SampleHolder(random: &rng, capturedAt: capturedAt)

        // Keys. deviceMac needs ECDH between the device key and the reader's ephemeral key, so
        // both are on the session curve; EdDSA authorities use P-256 for the session.
        let sessionCurve: Curve = curve.kind == .weierstrass ? curve : .p256
        let wantsMac = defect == .badDeviceMac || (defect == nil && rng.chance(options.deviceMacShare))
        let deviceCurve = (wantsMac || defect == .invalidDeviceKey) ? sessionCurve : curve
        let deviceKey = try SampleKeys.derive(curve: deviceCurve, seed: options.seed, label: "tx/\(index)/device")
        let eDeviceKey = try SampleKeys.derive(curve: sessionCurve, seed: options.seed, label: "tx/\(index)/edevice")
        let readerKey = try SampleKeys.derive(curve: sessionCurve, seed: options.seed, label: "tx/\(index)/reader")

        // DeviceEngagement (§8.2.1.1) for QR, BLE retrieval in central client and/or peripheral server mode.
        var ble: [CBORNode.Entry] = []
        switch rng.below(3) {
        case 0: ble = [.init(.int(0), .bool(false)), .init(.int(1), .bool(true)), .init(.int(11), .bytes(rng.bytes(16)))]
        case 1: ble = [.init(.int(0), .bool(true)), .init(.int(1), .bool(false)), .init(.int(10), .bytes(rng.bytes(16)))]
        default:
            ble = [.init(.int(0), .bool(true)), .init(.int(1), .bool(true)), .init(.int(10), .bytes(rng.bytes(16))),
                   .init(.int(11), .bytes(rng.bytes(16)))]
        }
        let engagement = CBORNode.map([
            .init(.int(0), .text("1.0")),
            .init(.int(1), .array([.int(1), .embedded(try COSEKey.node(for: eDeviceKey.publicKey))])),
            .init(.int(2), .array([.array([.int(2), .int(1), .map(ble)])])),
        ]).encoded()
        let uri = DeviceEngagement.uriScheme + Base64URL.encode(engagement)

        // SessionTranscript exactly as the verifier rebuilds it for QR (§9.1.5.1).
        let eReaderKeyBytes = CBORNode.embedded(try COSEKey.node(for: readerKey.publicKey)).encoded()
        let engagementBytes = CBORNode.embedded(raw: engagement[...]).encoded()
        let transcript = try SessionTranscript(deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: eReaderKeyBytes[...])

        // The mDL.
        let (disclosed, undisclosed) = holder.elements()
        var spec = DocumentSpec(disclosed: disclosed, signed: signed, validityDays: 365, deviceKey: deviceKey)
        spec.undisclosed = undisclosed
        spec.randomness = SampleRandom(seed: options.seed, label: "tx/\(index)/items")
        if rng.chance(0.5) { spec.expectedUpdate = signed.addingTimeInterval(330 * Self.day) }
        if wantsMac { spec.deviceAuth = .mac(readerEphemeralPublicKey: readerKey.publicKey) }
        if let uri = options.statusListURI {
            spec.msoStatus = SampleStatusToken.msoStatus(statusList: (index: UInt64(index - 1), uri: uri, certificate: nil))
        }
        defect?.apply(to: &spec, verificationTime: v, authority: authority)
        let document = try MdocIssuer.document(spec, authority: authority, transcript: transcript)
        let response = MdocIssuer.deviceResponse(documents: [document], status: defect == .errorStatus ? 10 : 0)

        // transaction.json.
        let grantedAt = capturedAt.addingTimeInterval(-Double(rng.int(in: 60...(30 * 86_400))))
        let expiresAt = consentExpired
            ? capturedAt.addingTimeInterval((v.timeIntervalSince(capturedAt) / 2).rounded(.down))
            : grantedAt.addingTimeInterval(365 * Self.day)
        let metadata = TransactionRecord(
            id: id, capturedAt: RFC3339.format(capturedAt), source: rng.pick(Self.sources) ?? "central",
            consent: .init(
                reference: "CNS-" + hexString(rng.bytes(6)).uppercased(), grantedAt: RFC3339.format(grantedAt),
                scopes: rng.pick(Self.scopes) ?? ["mdl.identity"], expiresAt: RFC3339.format(expiresAt)))
        var files: [(path: String, bytes: [UInt8])] = [("transaction.json", try metadata.json())]

        // Engagement.
        if options.withQR {
            files.append(("engagement.png", try QRCodeMatrix(encoding: uri).png()))
        } else {
            files.append(("engagement.txt", Array((uri + "\n").utf8)))
        }

        // The exchange.
        if options.withSession {
            let keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: eDeviceKey.publicKey, transcript: transcript)
            let request = Self.deviceRequest(elements: disclosed.map(\.identifier), retain: rng.chance(0.3))
            let establishment = CBORNode.map([
                .init(.text("eReaderKey"), .raw(eReaderKeyBytes[...])),
                .init(.text("data"), .bytes(try keys.encrypt(request, direction: .readerToDevice, counter: 1))),
            ]).encoded()
            let sessionData = CBORNode.map([
                .init(.text("data"), .bytes(try keys.encrypt(response, direction: .deviceToReader, counter: 1))),
            ]).encoded()
            files.append(("session-establishment.cbor", establishment))
            files.append(("session-data.cbor", sessionData))
        } else {
            files.append(("device-response.cbor", response))
            files.append(("session-transcript.cbor", transcript.bytes))
        }
        files.append(("reader-key.pem", Array(try readerKey.pkcs8PEM().utf8)))

        if options.withScans { files += try Self.scans(id: id, random: &rng) }

        var failures = defect.map { Set($0.expectedFailures.map(\.rawValue)) } ?? []
        if consentExpired { failures.insert("consent.window") }
        let expectation = SampleExpectation(
            transaction: id, defect: defect?.rawValue, expectedFailures: failures.sorted(),
            expectedVerdict: failures.isEmpty ? "valid" : "invalid", consentExpired: consentExpired, curve: curve.name,
            deviceAuth: wantsMac ? "mac" : "signature")
        return SampleTransaction(id: id, files: files, expectation: expectation)
    }

    /// A DeviceRequest (§8.3.2.1.2.1) for the mDL elements, without readerAuth.
    static func deviceRequest(elements: [String], retain: Bool) -> [UInt8] {
        let itemsRequest = CBORNode.map([
            .init(.text("docType"), .text(docType)),
            .init(.text("nameSpaces"), .map([
                .init(.text(namespace), .map(elements.map { .init(.text($0), .bool(retain && $0 != "portrait")) })),
            ])),
        ])
        return CBORNode.map([
            .init(.text("version"), .text("1.0")),
            .init(.text("docRequests"), .array([.map([.init(.text("itemsRequest"), .embedded(itemsRequest))])])),
        ]).encoded()
    }

    // MARK: Document scans

    /// Two-sided documents give a front and a back; a passport its data page.
    static let scanDocuments: [(type: DocumentType, sides: [String?])] = [
        (.driversLicense, ["front", "back"]), (.idCard, ["front", "back"]), (.passport, [nil]),
        (.residencePermit, ["front", "back"]), (.driversLicense, ["front"]),
    ]
    /// Share of scans rendered large enough to exceed the 1 MB upload limit.
    static let largeScanShare = 0.3

    /// `documents/manifest.json` and the scans it lists (``SyntheticScan``, JPEG).
    static func scans(id: String, random rng: inout SampleRandom) throws(SampleError) -> [(path: String, bytes: [UInt8])] {
        let document = rng.pick(scanDocuments) ?? (.idCard, ["front"])
        var manifest: [[String: String]] = []
        var files: [(path: String, bytes: [UInt8])] = []
        for side in document.sides {
            let large = rng.chance(largeScanShare)
            let megapixels = large ? 3.0 + rng.unit() * 2 : 0.6 + rng.unit() * 0.8
            let quality = large ? 95 : rng.int(in: 80...90)
            let noise = large ? 10 : 3
            let name = "\(document.type.rawValue)-\(side ?? "page").jpg"
            let bytes: [UInt8]
            do {
                bytes = try SyntheticScan.jpeg(.textDocument, megapixels: megapixels, quality: quality, seed: rng.next(), noise: noise)
            } catch {
                throw SampleError(.imageFailed, "\(id) scan \(name): \(error)")
            }
            var entry = ["file": name, "type": document.type.rawValue, "id": "\(id)-\(side ?? "page")"]
            if let side { entry["side"] = side }
            manifest.append(entry)
            files.append(("documents/\(name)", bytes))
        }
        let json: Data
        do {
            json = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw SampleError(.writeFailed, "\(id): manifest: \(error.localizedDescription)")
        }
        return [("documents/manifest.json", Array(json) + [0x0A])] + files
    }
}

/// `transaction.json` of a bundle: id, capture time, source and consent record.
struct TransactionRecord: Encodable {
    struct Consent: Encodable {
        var reference: String
        var grantedAt: String
        var scopes: [String]
        var expiresAt: String
    }

    var id: String
    var capturedAt: String
    var source: String
    var consent: Consent

    func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [0x0A]
    }
}
