package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocModel

/// `device.structure` (§8.3.2.1.2.2): the document has a DeviceSigned with DeviceNameSpacesBytes
/// and DeviceAuth (exactly one of deviceSignature and deviceMac). Publishes DeviceSigned, its
/// device-signed elements and the authentication it uses; the other one does not apply.
struct DeviceSignedCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.deviceStructure]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document)]

    func run(_ context: inout CheckContext) {
        guard context.document.document != nil else { return }
        let subject = context.document.subject
        guard let item = context.document.document?.deviceSignedItem else {
            context.report(CheckResult(.deviceStructure, .fail, "the document has no deviceSigned", subject: subject))
            Self.setAbsent("no deviceSigned", &context)
            return
        }
        let deviceSigned: DeviceSigned
        do {
            deviceSigned = try DeviceSigned(item, path: "deviceSigned")
        } catch {
            context.report(CheckResult(.deviceStructure, .fail, "\(error)", subject: subject))
            Self.setAbsent("deviceSigned is malformed", &context)
            return
        }
        context.report(CheckResult(.deviceStructure, .pass, "DeviceNameSpacesBytes and deviceAuth present", subject: subject))
        // Read from the local value, which is then moved into the facts: read back from the
        // facts, DeviceSigned would be copied out (retaining all it holds) for each question.
        var anyElement = false
        for index in deviceSigned.elements.indices {
            let namespace = deviceSigned.elements[index].namespace
            for identifier in deviceSigned.elements[index].identifiers {
                anyElement = true
                context.document.findings.elements.append(DisclosedElement(
                    namespace: namespace, identifier: identifier, digestID: nil, digest: nil, verified: false,
                    deviceSigned: true, value: nil))
            }
        }
        if !anyElement {
            context.setAbsent(.deviceSignedElements, .notApplicable("no device-signed element"))
        }
        context.document.findings.deviceAuthentication = deviceSigned.authentication.kind
        switch deviceSigned.authentication {
        case .signature(let signature):
            context.document.deviceSignature = signature
            context.setAbsent(.deviceMac, .notApplicable("the document uses deviceSignature"))
        case .mac(let mac):
            context.document.deviceMac = mac
            context.setAbsent(.deviceSignature, .notApplicable("the document uses deviceMac"))
        }
        context.document.deviceSigned = consume deviceSigned
    }

    static func setAbsent(_ reason: String, _ context: inout CheckContext) {
        for fact in [Fact.deviceSigned, .deviceSignedElements, .deviceSignature, .deviceMac] {
            context.setAbsent(fact, .unavailable(reason))
        }
    }
}

/// `device.keyAuthorizations` (§9.1.2.4): every device-signed element is authorized by the
/// MSO's keyAuthorizations (a namespace listed in nameSpaces authorizes all its elements;
/// otherwise the element must be listed under dataElements).
struct KeyAuthorizationsCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.deviceKeyAuthorizations]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [
        .examines(.document), .needs(.deviceSigned), .needs(.deviceSignedElements), .needs(.mso),
    ]

    func run(_ context: inout CheckContext) {
        guard let deviceElements = context.document.deviceSigned?.elements, context.document.mso != nil else { return }
        let subject = context.document.subject
        let elements = deviceElements.flatMap { ns in ns.identifiers.map { (ns.namespace, $0) } }
        let unauthorized = elements.filter { context.document.mso?.authorizes(namespace: $0.0, identifier: $0.1) != true }
        if unauthorized.isEmpty {
            context.report(CheckResult(
                .deviceKeyAuthorizations, .pass, "\(elements.count) device-signed element(s) authorized", subject: subject))
        } else {
            let list = unauthorized.map { "\($0.0)/\($0.1)" }.joined(separator: ", ")
            context.report(CheckResult(
                .deviceKeyAuthorizations, .fail, "device-signed element(s) not authorized by keyAuthorizations: \(list)",
                subject: subject))
        }
    }
}

/// `device.signature` (§9.1.3.6): the detached deviceSignature verifies over
/// DeviceAuthenticationBytes (built from the SessionTranscript, the docType and
/// DeviceNameSpacesBytes as received) with the MSO's device key.
struct DeviceSignatureCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.deviceSignature]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [
        .examines(.document), .needs(.deviceSignature),
        .needs(
            .sessionTranscript,
            otherwise: "no SessionTranscript: give the transcript (--transcript or the session messages) to check device authentication"),
        .needs(.deviceKey),
    ]

    func run(_ context: inout CheckContext) {
        guard let transcript = context.transaction.sessionTranscript, let deviceKey = context.document.deviceKey,
            let docType = context.document.document?.docTypeItem,
            let nameSpacesBytes = context.document.deviceSigned?.nameSpacesBytes,
            let detached = context.document.deviceSignature.map({ $0.payload == nil })
        else { return }
        let subject = context.document.subject
        guard detached else {
            context.report(CheckResult(
                .deviceSignature, .fail, "deviceSignature carries a payload; §9.1.3.6 requires it detached", subject: subject))
            return
        }
        let payload = deviceAuthenticationBytes(transcript: transcript, docType: docType, deviceNameSpacesBytes: nameSpacesBytes)
        let alg = Evidence("alg", context.document.deviceSignature?.headers.algorithm?.description ?? "none")
        do {
            if try context.document.deviceSignature?.verify(with: deviceKey, detachedPayload: payload[...]) == true {
                context.report(CheckResult(
                    .deviceSignature, .pass, "deviceSignature verifies over DeviceAuthenticationBytes", subject: subject,
                    evidence: [alg]))
            } else {
                context.report(CheckResult(
                    .deviceSignature, .fail,
                    "deviceSignature does not verify over DeviceAuthenticationBytes with the MSO device key", subject: subject,
                    evidence: [alg]))
            }
        } catch {
            context.report(CheckResult(.deviceSignature, .fail, "deviceSignature cannot be verified: \(error)", subject: subject))
        }
    }
}

/// `device.mac` (§9.1.3.5): the detached deviceMac (HMAC 256/256) verifies over
/// DeviceAuthenticationBytes with EMacKey, derived from the reader's ephemeral private key and
/// the MSO's device key.
struct DeviceMacCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.deviceMac]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [
        .examines(.document), .needs(.deviceMac),
        .needs(.sessionTranscript, otherwise: "no SessionTranscript: give the transcript and the reader's ephemeral key to check deviceMac"),
        .needs(.readerEphemeralKey, otherwise: "deviceMac needs the reader's ephemeral private key (--reader-key or reader-key.pem)"),
        .needs(.deviceKey),
    ]

    func run(_ context: inout CheckContext) {
        guard let mac = context.document.deviceMac, let transcript = context.transaction.sessionTranscript,
            let readerKey = context.transaction.readerEphemeralKey, let deviceKey = context.document.deviceKey,
            let docType = context.document.document?.docTypeItem,
            let nameSpacesBytes = context.document.deviceSigned?.nameSpacesBytes
        else { return }
        let subject = context.document.subject
        guard mac.headers.algorithm == .hmac256 else {
            let alg = mac.headers.algorithm?.description ?? "none"
            context.report(CheckResult(.deviceMac, .fail, "deviceMac algorithm \(alg) is not HMAC 256/256 (§9.1.3.5)", subject: subject))
            return
        }
        guard mac.payload == nil else {
            context.report(CheckResult(.deviceMac, .fail, "deviceMac carries a payload; §9.1.3.5 requires it detached", subject: subject))
            return
        }
        do {
            // EMacKey = HKDF-SHA256(ECDH(EReaderKey.Priv, SDeviceKey.Pub), SHA-256(SessionTranscriptBytes), "EMacKey") (§9.1.3.5).
            let shared = try readerKey.sharedSecret(with: deviceKey)
            let eMacKey = try HKDF.deriveKey(
                hash: .sha256, inputKeyMaterial: shared, salt: transcript.hkdfSalt, info: Array("EMacKey".utf8),
                outputByteCount: 32)
            let payload = deviceAuthenticationBytes(transcript: transcript, docType: docType, deviceNameSpacesBytes: nameSpacesBytes)
            if try mac.verify(key: eMacKey, detachedPayload: payload[...]) {
                context.report(CheckResult(
                    .deviceMac, .pass, "deviceMac verifies over DeviceAuthenticationBytes", subject: subject,
                    evidence: [Evidence("alg", "HMAC 256/256")]))
            } else {
                context.report(CheckResult(
                    .deviceMac, .fail, "deviceMac does not verify: wrong transcript or reader key, or a tampered document",
                    subject: subject))
            }
        } catch {
            context.report(CheckResult(.deviceMac, .fail, "deviceMac cannot be verified: \(error)", subject: subject))
        }
    }
}
