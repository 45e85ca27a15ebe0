public import Foundation
public import MdocCBOR
public import MdocCOSE
public import MdocCrypto
public import MdocModel

/// One data element to issue.
public struct SampleElement: Sendable {
    public var namespace: String
    public var identifier: String
    package var value: CBORNode

    package init(_ namespace: String, _ identifier: String, _ value: CBORNode) {
        self.namespace = namespace
        self.identifier = identifier
        self.value = value
    }
}

/// How the holder's device authenticates the response (§9.1.3).
public enum DeviceAuthMode: Sendable {
    /// deviceSignature with the device key.
    case signature
    /// deviceMac keyed with EMacKey derived from the device key and this reader ephemeral public key.
    case mac(readerEphemeralPublicKey: PublicKey)
}

/// What to issue in one mdoc document, and how to present it.
public struct DocumentSpec: Sendable {
    public var docType = "org.iso.18013.5.1.mDL"
    /// Elements issued AND disclosed in the response.
    public var disclosed: [SampleElement]
    /// Elements issued (their digests are in the MSO) but not disclosed.
    public var undisclosed: [SampleElement] = []
    public var digestAlgorithm: HashFunction = .sha256
    public var signed: Date
    public var validFrom: Date
    public var validUntil: Date
    public var expectedUpdate: Date?
    public var deviceKey: PrivateKey
    public var authorizedNameSpaces: [String] = []
    public var authorizedDataElements: [String: [String]] = [:]
    public var deviceSignedElements: [SampleElement] = []
    public var deviceAuth: DeviceAuthMode = .signature

    // Knobs for defects (defaults produce a conforming document).
    public var msoDocType: String? = nil
    public var msoVersion = "1.0"
    public var digestAlgorithmName: String? = nil
    public var includeX5chain = true
    /// Certificates (DER) sent after the DS in x5chain, which then becomes an array (RFC 9360).
    public var additionalX5chain: [[UInt8]] = []
    /// Put x5chain in the protected header instead of the unprotected one.
    public var x5chainInProtected = false
    /// Sign with this DS key and certificate instead of the authority's (longer chains).
    public var signer: (key: PrivateKey, certificate: Certificate)? = nil
    package var issuerAlgorithm: COSEAlgorithm? = nil
    public var tamperElementAfterSigning = false
    public var tamperMSOAfterSigning = false
    public var dropDigestOfFirstElement = false
    public var invalidDeviceKeyInMSO = false
    public var signDeviceAuthWithOtherKey = false
    /// Where the IssuerSignedItem salts (`random`) and digest ids come from: a seeded stream for
    /// reproducible samples, or `nil` for the system generator.
    public var randomness: SampleRandom? = nil

    public init(disclosed: [SampleElement], signed: Date, validityDays: Int = 365, deviceKey: PrivateKey) {
        self.disclosed = disclosed
        self.signed = signed
        self.validFrom = signed
        self.validUntil = signed.addingTimeInterval(Double(validityDays) * 86_400)
        self.deviceKey = deviceKey
    }
}

/// Issues mdoc documents and assembles DeviceResponses, as an issuing authority and a holder's
/// device would (§9.1.2 issuer data authentication, §9.1.3 mdoc authentication).
public enum MdocIssuer {
    /// Builds the CBOR node of one Document (`{docType, issuerSigned, deviceSigned}`).
    package static func document(_ spec: DocumentSpec, authority: IssuingAuthority, transcript: SessionTranscript) throws
        -> CBORNode
    {
        let hash = spec.digestAlgorithm
        // IssuerSignedItemBytes with per-namespace digest ids in a shuffled order.
        var itemsByNamespace: [String: [CBORNode]] = [:]
        var namespaceOrder: [String] = []
        var digests: [String: [(UInt64, [UInt8])]] = [:]
        var nextID: [String: UInt64] = [:]
        var firstDisclosed = true
        var randomness = spec.randomness
        func draw(_ count: Int) -> [UInt8] {
            if randomness != nil { return randomness?.bytes(count) ?? [] }
            return SecureRandom.bytes(count)
        }
        for (position, element) in (spec.disclosed + spec.undisclosed).enumerated() {
            let isDisclosed = position < spec.disclosed.count
            let id = nextID[element.namespace, default: UInt64(draw(1).first ?? 0) % 7]
            nextID[element.namespace] = id + 1 + UInt64(draw(1).first ?? 0) % 3
            let item = issuerSignedItem(digestID: id, identifier: element.identifier, value: element.value, salt: draw(16))
            let itemBytes = CBORNode.embedded(raw: item[...]).encoded()
            let dropThisDigest = spec.dropDigestOfFirstElement && isDisclosed && firstDisclosed
            if !dropThisDigest {
                digests[element.namespace, default: []].append((id, hash.hash(itemBytes)))
            }
            if isDisclosed {
                firstDisclosed = false
                if itemsByNamespace[element.namespace] == nil { namespaceOrder.append(element.namespace) }
                var sentBytes = itemBytes
                if spec.tamperElementAfterSigning && itemsByNamespace.isEmpty {
                    let altered = issuerSignedItem(digestID: id, identifier: element.identifier, value: .text("tampered"), salt: draw(16))
                    sentBytes = CBORNode.embedded(raw: altered[...]).encoded()
                }
                itemsByNamespace[element.namespace, default: []].append(.raw(sentBytes[...]))
            }
        }

        // MobileSecurityObject (§9.1.2.4).
        let deviceKeyNode: CBORNode
        if spec.invalidDeviceKeyInMSO {
            // A point that is not on the curve: y of a real key with its last bit flipped.
            guard var (x, y) = spec.deviceKey.publicKey.affineCoordinates, let last = y.last,
                let crv = COSEKey.identifier(for: spec.deviceKey.curve)
            else { throw COSEError(.invalidKey, "invalidDeviceKeyInMSO needs an EC device key") }
            y[y.count - 1] = last ^ 0x01
            x = x.map { $0 }
            deviceKeyNode = .map([.init(.int(1), .int(2)), .init(.int(-1), .int(crv)), .init(.int(-2), .bytes(x)), .init(.int(-3), .bytes(y))])
        } else {
            deviceKeyNode = try COSEKey.node(for: spec.deviceKey.publicKey)
        }
        var deviceKeyInfo: [CBORNode.Entry] = [.init("deviceKey", deviceKeyNode)]
        if !spec.authorizedNameSpaces.isEmpty || !spec.authorizedDataElements.isEmpty {
            var authorizations: [CBORNode.Entry] = []
            if !spec.authorizedNameSpaces.isEmpty {
                authorizations.append(.init("nameSpaces", .array(spec.authorizedNameSpaces.map { .text($0) })))
            }
            if !spec.authorizedDataElements.isEmpty {
                authorizations.append(.init("dataElements", .map(spec.authorizedDataElements.sorted { $0.key < $1.key }.map {
                    .init(.text($0.key), .array($0.value.map { .text($0) }))
                })))
            }
            deviceKeyInfo.append(.init("keyAuthorizations", .map(authorizations)))
        }
        var validity: [CBORNode.Entry] = [
            .init("signed", tdate(spec.signed)), .init("validFrom", tdate(spec.validFrom)),
            .init("validUntil", tdate(spec.validUntil)),
        ]
        if let expected = spec.expectedUpdate { validity.append(.init("expectedUpdate", tdate(expected))) }
        let valueDigests = CBORNode.map(digests.sorted { $0.key < $1.key }.map { namespace, entries in
            .init(.text(namespace), .map(entries.map { .init(.unsigned($0.0), .bytes($0.1)) }))
        })
        let mso = CBORNode.map([
            .init("version", .text(spec.msoVersion)),
            .init("digestAlgorithm", .text(spec.digestAlgorithmName ?? hash.rawValue)),
            .init("valueDigests", valueDigests),
            .init("deviceKeyInfo", .map(deviceKeyInfo)),
            .init("docType", .text(spec.msoDocType ?? spec.docType)),
            .init("validityInfo", .map(validity)),
        ])
        let msoBytes = CBORNode.embedded(mso).encoded()

        // issuerAuth: COSE_Sign1, untagged, x5chain = the DS certificate as one bstr (Annex D form).
        guard let signingAlgorithm = COSEAlgorithm.signing(for: authority.curve) else {
            throw COSEError(.unsupportedAlgorithm, "no COSE algorithm for \(authority.curve)")
        }
        let algorithm = spec.issuerAlgorithm ?? signingAlgorithm
        let dsKey = spec.signer?.key ?? authority.dsKey
        let dsCertificate = spec.signer?.certificate ?? authority.ds
        let x5chain: CBORNode = spec.additionalX5chain.isEmpty
            ? .bytes(dsCertificate.der) : .array([.bytes(dsCertificate.der)] + spec.additionalX5chain.map { .bytes($0) })
        var protectedEntries: [CBORNode.Entry] = [.init(.int(1), .int(algorithm.rawValue))]
        if spec.includeX5chain && spec.x5chainInProtected { protectedEntries.append(.init(.int(33), x5chain)) }
        let protected = CBORNode.map(protectedEntries).encoded()
        let toBeSigned = COSESign1.signatureStructure(protected: protected[...], payload: msoBytes[...])
        let signature = try dsKey.sign(message: toBeSigned, hash: signingAlgorithm.hashFunction)
        var sentMSO = msoBytes
        if spec.tamperMSOAfterSigning {
            // Flip one bit of the last digest in the MSO (the digest of an undisclosed element when
            // there is one): the signature no longer verifies, nothing else changes.
            guard let (namespace, entries) = digests.sorted(by: { $0.key < $1.key }).last, let digest = entries.last?.1,
                let range = sentMSO.firstRange(of: digest), let index = range.last
            else { throw COSEError(.malformed, "tamperMSOAfterSigning found no digest to alter") }
            _ = namespace
            sentMSO[index] ^= 0x01
        }
        let unprotected: CBORNode = spec.includeX5chain && !spec.x5chainInProtected ? .map([.init(.int(33), x5chain)]) : .map([])
        let issuerAuth = CBORNode.array([.bytes(protected), unprotected, .bytes(sentMSO), .bytes(signature)])

        // deviceSigned (§9.1.3).
        var deviceNamespaces: [String: [CBORNode.Entry]] = [:]
        for element in spec.deviceSignedElements {
            deviceNamespaces[element.namespace, default: []].append(.init(.text(element.identifier), element.value))
        }
        let deviceNameSpaces = CBORNode.map(deviceNamespaces.sorted { $0.key < $1.key }.map { .init(.text($0.key), .map($0.value)) })
        let deviceNameSpacesBytes = CBORNode.embedded(deviceNameSpaces).encoded()
        let docTypeBytes = CBORNode.text(spec.docType).encoded()
        let deviceAuthentication = CBORNode.embedded(.array([
            .text("DeviceAuthentication"), .raw(transcript.transcript.encoded), .raw(docTypeBytes[...]),
            .raw(deviceNameSpacesBytes[...]),
        ])).encoded()
        let deviceAuth: CBORNode
        switch spec.deviceAuth {
        case .signature:
            let signer = spec.signDeviceAuthWithOtherKey ? try PrivateKey.generate(curve: spec.deviceKey.curve) : spec.deviceKey
            let sign1 = try COSESign1.sign(payload: deviceAuthentication, key: signer, detached: true, tagged: false)
            deviceAuth = .map([.init("deviceSignature", .raw(sign1[...]))])
        case .mac(let readerPublic):
            let shared = try spec.deviceKey.sharedSecret(with: readerPublic)
            var eMacKey = try HKDF.deriveKey(
                hash: .sha256, inputKeyMaterial: shared, salt: transcript.hkdfSalt, info: Array("EMacKey".utf8), outputByteCount: 32)
            if spec.signDeviceAuthWithOtherKey { eMacKey = SecureBytes(SecureRandom.bytes(32)) }
            let mac0 = try COSEMac0.mac(payload: deviceAuthentication, key: eMacKey)
            deviceAuth = .map([.init("deviceMac", .raw(mac0[...]))])
        }

        let nameSpacesNode = CBORNode.map(namespaceOrder.map { .init(.text($0), .array(itemsByNamespace[$0] ?? [])) })
        return .map([
            .init("docType", .raw(docTypeBytes[...])),
            .init("issuerSigned", .map([.init("nameSpaces", nameSpacesNode), .init("issuerAuth", issuerAuth)])),
            .init("deviceSigned", .map([
                .init("nameSpaces", .raw(deviceNameSpacesBytes[...])), .init("deviceAuth", deviceAuth),
            ])),
        ])
    }

    /// A DeviceResponse (§8.3.2.1.2.2) around documents.
    package static func deviceResponse(documents: [CBORNode], status: UInt64 = 0, version: String = "1.0") -> [UInt8] {
        var entries: [CBORNode.Entry] = [.init("version", .text(version))]
        if !documents.isEmpty { entries.append(.init("documents", .array(documents))) }
        entries.append(.init("status", .unsigned(status)))
        return CBORNode.map(entries).encoded()
    }

    static func issuerSignedItem(digestID: UInt64, identifier: String, value: CBORNode, salt: [UInt8]) -> [UInt8] {
        CBORNode.map([
            .init("digestID", .unsigned(digestID)),
            .init("random", .bytes(salt)),
            .init("elementIdentifier", .text(identifier)),
            .init("elementValue", value),
        ]).encoded()
    }

    /// `tdate = #6.0(tstr)` in UTC with second precision (§9.1.2.4).
    package static func tdate(_ date: Date) -> CBORNode {
        .tagged(0, .text(CBORDate.format(date)))
    }

    /// `full-date = #6.1004(tstr)` (RFC 8943).
    package static func fullDate(_ date: Date) -> CBORNode {
        .tagged(1004, .text(String(CBORDate.format(date).prefix(10))))
    }
}

extension Array where Element == UInt8 {
    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where self[start..<start + needle.count].elementsEqual(needle) {
            return start..<start + needle.count
        }
        return nil
    }
}
