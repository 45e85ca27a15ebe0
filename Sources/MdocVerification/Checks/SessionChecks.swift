package import Foundation
package import MdocCBOR
package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocModel

/// Opening the captured session (§9.1.1, §9.1.5): `session.transcript` (given as a file, else
/// rebuilt for a QR engagement), `session.readerKey` (the reader's ephemeral key matches
/// eReaderKey), `session.establishment` and `session.data` (decrypted with the session keys
/// derived from them, in counter order), `session.counter`, `session.status`, and
/// `reader.request` for the DeviceRequest found. Publishes the transcript, the reader key, the
/// DeviceRequest and the DeviceResponse bytes (decrypted, else the plain ones); when keys are
/// missing, the reason the session cannot be decrypted.
struct SessionCheck: Check {
    /// How many counters are tried to tell a reordered message from a damaged one.
    static let maxReorderSearch = 64

    var ids: [CheckID] {
        [.sessionTranscript, .sessionReaderKey, .sessionEstablishment, .sessionData, .sessionCounter, .sessionStatus,
         .readerRequest]
    }
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { [] }

    func run(_ context: inout CheckContext) {
        let establishment = Self.establishment(&context)
        Self.transcript(establishment: establishment, &context)
        Self.readerKey(establishment: establishment, &context)
        let keys = Self.sessionKeys(&context)
        Self.decryptRequest(establishment: establishment, keys: keys, &context)
        if let keys { Self.decryptData(keys: keys, &context) }
        if context.transaction.deviceResponseBytes == nil {
            context.transaction.deviceResponseBytes = context.transaction.inputs.deviceResponse
        }
    }

    /// SessionEstablishment (§9.1.1.4), decoded.
    static func establishment(_ context: inout CheckContext) -> SessionEstablishment? {
        let inputs = context.transaction.inputs
        let decoding = context.settings.decoding
        var establishment: SessionEstablishment?
        if let bytes = inputs.sessionEstablishment {
            if let item = CBORFailure.decode(bytes, options: decoding, what: "SessionEstablishment", subject: "session", into: &context) {
                do {
                    establishment = try SessionEstablishment(item)
                } catch {
                    context.report(CheckResult(.sessionEstablishment, .fail, "\(error)", subject: "session"))
                }
            }
        }

        return establishment
    }

    /// SessionTranscript (§9.1.5.1): given as a file, else rebuilt for QR engagement.
    static func transcript(establishment: SessionEstablishment?, _ context: inout CheckContext) {
        let inputs = context.transaction.inputs
        if let given = inputs.transcript {
            do {
                let transcript = try SessionTranscript(decoding: given)
                context.transaction.sessionTranscript = transcript
                var mismatches: [String] = []
                if let engagement = context.transaction.deviceEngagement {
                    let inTranscript = transcript.deviceEngagementBytes.embeddedBytes
                    if inTranscript.map({ !$0.elementsEqual(engagement.encoded) }) ?? true {
                        mismatches.append("its DeviceEngagement differs from the captured engagement")
                    }
                }
                if let establishment, !transcript.eReaderKeyBytes.encoded.elementsEqual(establishment.eReaderKeyBytes.encoded) {
                    mismatches.append("its EReaderKeyBytes differ from SessionEstablishment.eReaderKey")
                }
                if mismatches.isEmpty {
                    // The reader's digest of the file is that of SessionTranscriptBytes when the
                    // file holds them (tag 24), not when it holds the bare array.
                    let digest =
                        inputs.transcriptSHA256.flatMap { $0.count == 32 && transcript.bytes == given ? $0 : nil }
                        ?? HashFunction.sha256.hash(transcript.bytes)
                    context.report(CheckResult(
                        .sessionTranscript, .pass, "session-transcript.cbor given (handover: \(Self.handoverName(transcript.handover)))",
                        evidence: [Evidence("sha256", hexString(digest))]))
                } else {
                    context.report(CheckResult(
                        .sessionTranscript, .fail, "the given transcript does not belong to this exchange: " + mismatches.joined(separator: "; ")))
                }
            } catch {
                context.report(CheckResult(.sessionTranscript, .fail, "session-transcript.cbor: \(error)"))
            }
        } else if let engagement = context.transaction.deviceEngagement, let establishment {
            do {
                let engagementBytes = CBORNode.embedded(raw: engagement.encoded).encoded()
                let transcript = try SessionTranscript(
                    deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: establishment.eReaderKeyBytes.encoded)
                context.transaction.sessionTranscript = transcript
                context.report(CheckResult(
                    .sessionTranscript, .pass, "rebuilt for QR engagement: [DeviceEngagementBytes, EReaderKeyBytes, null]",
                    evidence: [Evidence("sha256", hexString(HashFunction.sha256.hash(transcript.bytes)))]))
            } catch {
                context.report(CheckResult(.sessionTranscript, .fail, "cannot build the transcript: \(error)"))
            }
        } else if inputs.sessionEstablishment != nil || !inputs.sessionData.isEmpty {
            let missing = context.transaction.deviceEngagement == nil ? "the device engagement (engagement.png/jpg/txt)" : "SessionEstablishment"
            context.report(CheckResult(
                .sessionTranscript, .unchecked, "the transcript cannot be rebuilt without \(missing), and no session-transcript.cbor was kept"))
        }
    }

    /// The reader's ephemeral key, matched with eReaderKey.
    static func readerKey(establishment: SessionEstablishment?, _ context: inout CheckContext) {
        let inputs = context.transaction.inputs
        if let pem = inputs.readerKeyPEM {
            do {
                let key = try PrivateKey(pem: pem)
                if let establishment {
                    if try Self.matches(key, establishment.eReaderKey) {
                        context.transaction.readerEphemeralKey = key
                        context.report(CheckResult(.sessionReaderKey, .pass, "reader-key.pem is the private key of eReaderKey"))
                    } else {
                        context.report(CheckResult(
                            .sessionReaderKey, .fail, "reader-key.pem does not match eReaderKey of SessionEstablishment: wrong key kept"))
                    }
                } else if let transcript = context.transaction.sessionTranscript, let keyItem = try? transcript.eReaderKeyBytes.decodeEmbedded(),
                    let eReaderKey = try? COSEKey(keyItem)
                {
                    if try Self.matches(key, eReaderKey) {
                        context.transaction.readerEphemeralKey = key
                        context.report(CheckResult(.sessionReaderKey, .pass, "reader-key.pem is the private key of the transcript's EReaderKey"))
                    } else {
                        context.report(CheckResult(.sessionReaderKey, .fail, "reader-key.pem does not match the transcript's EReaderKey"))
                    }
                } else {
                    context.transaction.readerEphemeralKey = key
                    context.report(CheckResult(.sessionReaderKey, .unchecked, "no eReaderKey to compare reader-key.pem with"))
                }
            } catch {
                context.report(CheckResult(.sessionReaderKey, .fail, "reader-key.pem is not a PKCS#8 private key: \(error)"))
            }
        }
    }

    /// The session keys (§9.1.1.5), when the session messages need them; otherwise why not.
    static func sessionKeys(_ context: inout CheckContext) -> SessionKeys? {
        let inputs = context.transaction.inputs
        let needsDecryption = inputs.sessionEstablishment != nil || !inputs.sessionData.isEmpty
        var keys: SessionKeys?
        if needsDecryption {
            let eDeviceKey = Self.deviceEphemeralKey(engagement: context.transaction.deviceEngagement, transcript: context.transaction.sessionTranscript)
            if let readerKey = context.transaction.readerEphemeralKey, let transcript = context.transaction.sessionTranscript, let eDeviceKey {
                do {
                    keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: eDeviceKey, transcript: transcript)
                } catch {
                    context.report(CheckResult(.sessionEstablishment, .fail, "cannot derive the session keys: \(error)", subject: "session"))
                }
            } else {
                var missing: [String] = []
                if context.transaction.readerEphemeralKey == nil {
                    missing.append(inputs.readerKeyPEM == nil
                        ? "reader key (the reader's ephemeral private key: reader-key.pem or --reader-key)"
                        : "usable reader key (reader-key.pem was refused)")
                }
                if context.transaction.sessionTranscript == nil { missing.append("SessionTranscript") }
                if eDeviceKey == nil { missing.append("EDeviceKey (from the engagement)") }
                let reason = "no " + missing.joined(separator: ", no ") + ": the session cannot be decrypted"
                context.transaction.undecryptedReason = reason
                if inputs.sessionEstablishment != nil {
                    context.report(CheckResult(.sessionEstablishment, .unchecked, reason, subject: "session"))
                }
                if !inputs.sessionData.isEmpty {
                    context.report(CheckResult(.sessionData, .unchecked, reason, subject: "session"))
                }
            }
        }
        return keys
    }

    /// SessionEstablishment's data decrypted with SKReader, and the DeviceRequest it carries
    /// (or the plain one kept).
    static func decryptRequest(establishment: SessionEstablishment?, keys: SessionKeys?, _ context: inout CheckContext) {
        let inputs = context.transaction.inputs
        let decoding = context.settings.decoding
        if let establishment, let keys {
            do {
                let plain = try keys.decrypt(establishment.data, direction: .readerToDevice, counter: 1)
                context.report(CheckResult(
                    .sessionEstablishment, .pass, "data decrypts with SKReader (counter 1) to \(plain.count) bytes", subject: "session"))
                if inputs.deviceRequest == nil { context.transaction.deviceRequest = Self.parseRequest(plain, decoding: decoding, into: &context) }
            } catch {
                context.report(CheckResult(
                    .sessionEstablishment, .fail, "SessionEstablishment.data does not decrypt with SKReader: tampered ciphertext or wrong keys",
                    subject: "session"))
            }
        }
        if let plain = inputs.deviceRequest {
            context.transaction.deviceRequest = Self.parseRequest(plain, decoding: decoding, into: &context)
        }
    }

    /// SessionData decrypted with SKDevice, counter by counter (§9.1.1.5), up to the session's
    /// termination (status 20).
    static func decryptData(keys: SessionKeys, _ context: inout CheckContext) {
        let inputs = context.transaction.inputs
        let decoding = context.settings.decoding
        guard !inputs.sessionData.isEmpty else { return }
        var counter: UInt32 = 0
        var decryptedCount = 0
        var failed = false
        for (index, message) in inputs.sessionData.enumerated() {
            let subject = "session.data[\(index)]"
            let what = inputs.sessionDataLabel(index)
            guard let item = CBORFailure.decode(message, options: decoding, what: what, subject: subject, into: &context) else {
                failed = true
                break
            }
            let data: SessionData
            do {
                data = try SessionData(item)
            } catch {
                context.report(CheckResult(.sessionData, .fail, "\(what): \(error)", subject: subject))
                failed = true
                break
            }
            if let ciphertext = data.data {
                counter &+= 1
                do {
                    let plain = try keys.decrypt(ciphertext, direction: .deviceToReader, counter: counter)
                    decryptedCount += 1
                    context.transaction.deviceResponseBytes = plain
                } catch {
                    // Out of order, or damaged? A message that decrypts under another counter was reordered.
                    let actual = Self.reorderedCounter(ciphertext, keys: keys, expected: counter, messageCount: inputs.sessionData.count)
                    if let actual {
                        context.report(CheckResult(
                            .sessionCounter, .fail,
                            "\(what) was encrypted with counter \(actual), expected \(counter): messages out of order or replayed",
                            subject: subject, evidence: [Evidence("expected", String(counter)), Evidence("actual", String(actual))]))
                    } else {
                        context.report(CheckResult(
                            .sessionData, .fail,
                            "\(what) does not decrypt with SKDevice: tampered ciphertext, or from another session",
                            subject: subject))
                    }
                    failed = true
                    break
                }
            }
            if let status = data.status {
                let meaning = SessionData.statusMeaning(status)
                let statusResult: CheckStatus = status == 20 ? .pass : .fail
                context.report(CheckResult(
                    .sessionStatus, statusResult, "status \(status) (\(meaning))", subject: subject,
                    evidence: [Evidence("status", String(status))]))
                if status == 20 && index < inputs.sessionData.count - 1 {
                    // The session ended here: what follows is not part of it, and is not used.
                    context.report(CheckResult(
                        .sessionStatus, .fail,
                        "\(inputs.sessionData.count - 1 - index) message(s) follow the session termination; they are ignored",
                        subject: subject))
                    break
                }
            }
        }
        if !failed {
            context.report(CheckResult(
                .sessionData, decryptedCount > 0 ? .pass : .fail,
                decryptedCount > 0 ? "\(decryptedCount) message(s) decrypt with SKDevice in order" : "no SessionData carries data",
                subject: "session"))
        }
    }

    /// Whether `privateKey` is the private key of the public key `coseKey` describes. A key
    /// kept as its EC scalar is compared as d·G with the COSE_Key's point; otherwise compares
    /// coordinates when the COSE_Key carries both (no second EC key import), or imports and
    /// compares.
    static func matches(_ privateKey: PrivateKey, _ coseKey: COSEKey) throws -> Bool {
        guard privateKey.curve == coseKey.curve else { return false }
        if let coseY = coseKey.y, let same = try privateKey.isPrivateKey(ofX: coseKey.x, y: coseY) { return same }
        let key = privateKey.publicKey
        if let (x, y) = key.affineCoordinates, let coseY = coseKey.y {
            return coseKey.x.elementsEqual(x) && coseY.elementsEqual(y)
        }
        if let raw = key.rawOKP, coseKey.keyType == .okp { return coseKey.x.elementsEqual(raw) }
        return key.isSameKey(as: try coseKey.publicKey())
    }

    /// EDeviceKey from the engagement, else from the transcript's DeviceEngagementBytes.
    static func deviceEphemeralKey(engagement: DeviceEngagement?, transcript: SessionTranscript?) -> PublicKey? {
        if let engagement, let key = try? engagement.eDeviceKey.publicKey() { return key }
        guard let transcript, let item = try? transcript.deviceEngagementBytes.decodeEmbedded(),
            let fromTranscript = try? DeviceEngagement(item)
        else { return nil }
        return try? fromTranscript.eDeviceKey.publicKey()
    }

    /// The counter a message that failed at `expected` was really encrypted with, if any.
    static func reorderedCounter(_ ciphertext: ArraySlice<UInt8>, keys: SessionKeys, expected: UInt32, messageCount: Int) -> UInt32? {
        let limit = UInt32(max(1, min(messageCount, maxReorderSearch)))
        for candidate in 1...limit where candidate != expected {
            if (try? keys.decrypt(ciphertext, direction: .deviceToReader, counter: candidate)) != nil { return candidate }
        }
        return nil
    }

    static func parseRequest(_ bytes: [UInt8], decoding: CBORDecodingOptions, into context: inout CheckContext) -> DeviceRequest? {
        guard let item = CBORFailure.decode(bytes, options: decoding, what: "DeviceRequest", subject: "request", into: &context) else { return nil }
        do {
            let request = try DeviceRequest(item)
            context.report(CheckResult(.readerRequest, .pass, "DeviceRequest \(request.version), \(request.docRequests.count) doc request(s)"))
            return request
        } catch {
            context.report(CheckResult(.readerRequest, .fail, "DeviceRequest: \(error)"))
            return nil
        }
    }

    static func handoverName(_ handover: CBOR) -> String {
        if handover.isNull { return "QR (null)" }
        if let array = handover.array, array.count == 2 { return "NFC negotiated" }
        if let array = handover.array, array.count == 1 { return "NFC static" }
        return "other"
    }
}
