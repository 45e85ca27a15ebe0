import Foundation
public import MdocCBOR
public import MdocChecks
public import MdocCrypto
public import MdocModel
import MdocCOSE

/// What a reader kept of an exchange (DESIGN.md, "The transaction bundle"). Every part is optional.
public struct CapturedSession: Sendable {
    /// The `mdoc:` URI, read from `engagement.txt` or decoded from a QR image by the caller.
    public var engagementURI: String?
    public var sessionEstablishment: [UInt8]?
    /// SessionData messages from the mdoc, in the order exchanged.
    public var sessionData: [[UInt8]] = []
    /// The reader's ephemeral private key (PKCS#8 PEM).
    public var readerKeyPEM: [UInt8]?
    /// SessionTranscriptBytes given as-is (non-QR handovers).
    public var transcript: [UInt8]?
    /// The DeviceRequest in plain form, when kept.
    public var deviceRequest: [UInt8]?
    /// The DeviceResponse in plain form, when kept.
    public var deviceResponse: [UInt8]?

    public init() {}
}

/// What opening a captured session produced.
public struct SessionOutcome: Sendable {
    public var checks: [CheckResult] = []
    public var engagement: DeviceEngagement?
    public var transcript: SessionTranscript?
    public var readerKey: PrivateKey?
    /// The DeviceResponse: decrypted from SessionData, else the plain one.
    public var deviceResponse: [UInt8]?
    public var deviceRequest: DeviceRequest?
    /// Why the session messages could not be decrypted, when keys were missing (not when a
    /// decryption failed): the transaction is then indeterminate, not invalid.
    public var undecryptedReason: String?
}

/// Rebuilds and opens a captured session: DeviceEngagement from the QR URI, SessionTranscript
/// (§9.1.5.1), session keys (§9.1.1.5), decryption of SessionEstablishment and SessionData.
public enum SessionVerifier {
    /// How many counters are tried to tell a reordered message from a damaged one.
    public static let maxReorderSearch = 64

    public static func open(_ captured: CapturedSession, decoding: CBORDecodingOptions = .default) -> SessionOutcome {
        var outcome = SessionOutcome()

        // DeviceEngagement from the URI (§8.2.2.3).
        var engagementItem: CBOR?
        if let uri = captured.engagementURI {
            do {
                let bytes = try DeviceEngagement.bytes(fromURI: uri)
                outcome.checks.append(CheckResult(.engagementURI, .pass, "mdoc: URI, \(bytes.count) bytes of DeviceEngagement"))
                engagementItem = decode(bytes, options: decoding, what: "DeviceEngagement", subject: "engagement", into: &outcome.checks)
            } catch {
                outcome.checks.append(CheckResult(.engagementURI, .fail, "\(error)"))
            }
        }
        if let item = engagementItem {
            outcome.engagement = checkEngagement(item, into: &outcome.checks)
        }

        // SessionEstablishment (§9.1.1.4).
        var establishment: SessionEstablishment?
        if let bytes = captured.sessionEstablishment {
            if let item = decode(bytes, options: decoding, what: "SessionEstablishment", subject: "session", into: &outcome.checks) {
                do {
                    establishment = try SessionEstablishment(item)
                } catch {
                    outcome.checks.append(CheckResult(.sessionEstablishment, .fail, "\(error)", subject: "session"))
                }
            }
        }

        // SessionTranscript (§9.1.5.1): given as a file, else rebuilt for QR engagement.
        if let given = captured.transcript {
            do {
                let transcript = try SessionTranscript(decoding: given)
                outcome.transcript = transcript
                var mismatches: [String] = []
                if let engagement = outcome.engagement {
                    let inTranscript = transcript.deviceEngagementBytes.embeddedBytes
                    if inTranscript.map({ !$0.elementsEqual(engagement.encoded) }) ?? true {
                        mismatches.append("its DeviceEngagement differs from the captured engagement")
                    }
                }
                if let establishment, !transcript.eReaderKeyBytes.encoded.elementsEqual(establishment.eReaderKeyBytes.encoded) {
                    mismatches.append("its EReaderKeyBytes differ from SessionEstablishment.eReaderKey")
                }
                if mismatches.isEmpty {
                    outcome.checks.append(CheckResult(
                        .sessionTranscript, .pass, "session-transcript.cbor given (handover: \(handoverName(transcript.handover)))",
                        evidence: [Evidence("sha256", hexString(HashFunction.sha256.hash(transcript.bytes)))]))
                } else {
                    outcome.checks.append(CheckResult(
                        .sessionTranscript, .fail, "the given transcript does not belong to this exchange: " + mismatches.joined(separator: "; ")))
                }
            } catch {
                outcome.checks.append(CheckResult(.sessionTranscript, .fail, "session-transcript.cbor: \(error)"))
            }
        } else if let engagement = outcome.engagement, let establishment {
            do {
                let engagementBytes = CBORNode.embedded(raw: engagement.encoded).encoded()
                let transcript = try SessionTranscript(
                    deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: establishment.eReaderKeyBytes.encoded)
                outcome.transcript = transcript
                outcome.checks.append(CheckResult(
                    .sessionTranscript, .pass, "rebuilt for QR engagement: [DeviceEngagementBytes, EReaderKeyBytes, null]",
                    evidence: [Evidence("sha256", hexString(HashFunction.sha256.hash(transcript.bytes)))]))
            } catch {
                outcome.checks.append(CheckResult(.sessionTranscript, .fail, "cannot build the transcript: \(error)"))
            }
        } else if captured.sessionEstablishment != nil || !captured.sessionData.isEmpty {
            let missing = outcome.engagement == nil ? "the device engagement (engagement.png/jpg/txt)" : "SessionEstablishment"
            outcome.checks.append(CheckResult(
                .sessionTranscript, .unchecked, "the transcript cannot be rebuilt without \(missing), and no session-transcript.cbor was kept"))
        }

        // The reader's ephemeral key.
        if let pem = captured.readerKeyPEM {
            do {
                let key = try PrivateKey(pem: pem)
                if let establishment {
                    if try Self.matches(key.publicKey, establishment.eReaderKey) {
                        outcome.readerKey = key
                        outcome.checks.append(CheckResult(.sessionReaderKey, .pass, "reader-key.pem is the private key of eReaderKey"))
                    } else {
                        outcome.checks.append(CheckResult(
                            .sessionReaderKey, .fail, "reader-key.pem does not match eReaderKey of SessionEstablishment: wrong key kept"))
                    }
                } else if let transcript = outcome.transcript, let keyItem = try? transcript.eReaderKeyBytes.decodeEmbedded(),
                    let eReaderKey = try? COSEKey(keyItem)
                {
                    if try Self.matches(key.publicKey, eReaderKey) {
                        outcome.readerKey = key
                        outcome.checks.append(CheckResult(.sessionReaderKey, .pass, "reader-key.pem is the private key of the transcript's EReaderKey"))
                    } else {
                        outcome.checks.append(CheckResult(.sessionReaderKey, .fail, "reader-key.pem does not match the transcript's EReaderKey"))
                    }
                } else {
                    outcome.readerKey = key
                    outcome.checks.append(CheckResult(.sessionReaderKey, .unchecked, "no eReaderKey to compare reader-key.pem with"))
                }
            } catch {
                outcome.checks.append(CheckResult(.sessionReaderKey, .fail, "reader-key.pem is not a PKCS#8 private key: \(error)"))
            }
        }

        // Decryption (§9.1.1.5).
        let needsDecryption = captured.sessionEstablishment != nil || !captured.sessionData.isEmpty
        var keys: SessionKeys?
        if needsDecryption {
            let eDeviceKey = deviceEphemeralKey(engagement: outcome.engagement, transcript: outcome.transcript)
            if let readerKey = outcome.readerKey, let transcript = outcome.transcript, let eDeviceKey {
                do {
                    keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: eDeviceKey, transcript: transcript)
                } catch {
                    outcome.checks.append(CheckResult(.sessionEstablishment, .fail, "cannot derive the session keys: \(error)", subject: "session"))
                }
            } else {
                var missing: [String] = []
                if outcome.readerKey == nil {
                    missing.append(captured.readerKeyPEM == nil
                        ? "reader key (the reader's ephemeral private key: reader-key.pem or --reader-key)"
                        : "usable reader key (reader-key.pem was refused)")
                }
                if outcome.transcript == nil { missing.append("SessionTranscript") }
                if eDeviceKey == nil { missing.append("EDeviceKey (from the engagement)") }
                let reason = "no " + missing.joined(separator: ", no ") + ": the session cannot be decrypted"
                outcome.undecryptedReason = reason
                if captured.sessionEstablishment != nil {
                    outcome.checks.append(CheckResult(.sessionEstablishment, .unchecked, reason, subject: "session"))
                }
                if !captured.sessionData.isEmpty {
                    outcome.checks.append(CheckResult(.sessionData, .unchecked, reason, subject: "session"))
                }
            }
        }

        if let establishment, let keys {
            do {
                let plain = try keys.decrypt(establishment.data, direction: .readerToDevice, counter: 1)
                outcome.checks.append(CheckResult(
                    .sessionEstablishment, .pass, "data decrypts with SKReader (counter 1) to \(plain.count) bytes", subject: "session"))
                if captured.deviceRequest == nil { outcome.deviceRequest = parseRequest(plain, decoding: decoding, into: &outcome.checks) }
            } catch {
                outcome.checks.append(CheckResult(
                    .sessionEstablishment, .fail, "SessionEstablishment.data does not decrypt with SKReader: tampered ciphertext or wrong keys",
                    subject: "session"))
            }
        }
        if let plain = captured.deviceRequest {
            outcome.deviceRequest = parseRequest(plain, decoding: decoding, into: &outcome.checks)
        }

        if let keys, !captured.sessionData.isEmpty {
            var counter: UInt32 = 0
            var decryptedCount = 0
            var failed = false
            for (index, message) in captured.sessionData.enumerated() {
                let subject = "session.data[\(index)]"
                guard let item = decode(message, options: decoding, what: "SessionData[\(index)]", subject: subject, into: &outcome.checks) else {
                    failed = true
                    break
                }
                let data: SessionData
                do {
                    data = try SessionData(item)
                } catch {
                    outcome.checks.append(CheckResult(.sessionData, .fail, "\(error)", subject: subject))
                    failed = true
                    break
                }
                if let ciphertext = data.data {
                    counter &+= 1
                    do {
                        let plain = try keys.decrypt(ciphertext, direction: .deviceToReader, counter: counter)
                        decryptedCount += 1
                        outcome.deviceResponse = plain
                    } catch {
                        // Out of order, or damaged? A message that decrypts under another counter was reordered.
                        let actual = reorderedCounter(ciphertext, keys: keys, expected: counter, messageCount: captured.sessionData.count)
                        if let actual {
                            outcome.checks.append(CheckResult(
                                .sessionCounter, .fail,
                                "SessionData[\(index)] was encrypted with counter \(actual), expected \(counter): messages out of order or replayed",
                                subject: subject, evidence: [Evidence("expected", String(counter)), Evidence("actual", String(actual))]))
                        } else {
                            outcome.checks.append(CheckResult(
                                .sessionData, .fail,
                                "SessionData[\(index)] does not decrypt with SKDevice: tampered ciphertext, or from another session",
                                subject: subject))
                        }
                        failed = true
                        break
                    }
                }
                if let status = data.status {
                    let meaning = SessionData.statusMeaning(status)
                    let statusResult: CheckStatus = status == 20 ? .pass : .fail
                    outcome.checks.append(CheckResult(
                        .sessionStatus, statusResult, "status \(status) (\(meaning))", subject: subject,
                        evidence: [Evidence("status", String(status))]))
                    if status == 20 && index < captured.sessionData.count - 1 {
                        // The session ended here: what follows is not part of it, and is not used.
                        outcome.checks.append(CheckResult(
                            .sessionStatus, .fail,
                            "\(captured.sessionData.count - 1 - index) message(s) follow the session termination; they are ignored",
                            subject: subject))
                        break
                    }
                }
            }
            if !failed {
                outcome.checks.append(CheckResult(
                    .sessionData, decryptedCount > 0 ? .pass : .fail,
                    decryptedCount > 0 ? "\(decryptedCount) message(s) decrypt with SKDevice in order" : "no SessionData carries data",
                    subject: "session"))
            }
        }
        if outcome.deviceResponse == nil { outcome.deviceResponse = captured.deviceResponse }
        return outcome
    }

    /// Whether `key` is the public key `coseKey` describes. Compares coordinates when the
    /// COSE_Key carries both (no second EC key import); otherwise imports and compares.
    static func matches(_ key: PublicKey, _ coseKey: COSEKey) throws -> Bool {
        guard key.curve == coseKey.curve else { return false }
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

    /// Decodes received CBOR, turning a failure into its `cbor.*` result.
    static func decode(
        _ bytes: [UInt8], options: CBORDecodingOptions, what: String, subject: String, into checks: inout [CheckResult]
    ) -> CBOR? {
        do {
            return try CBOR(decoding: bytes, options: options)
        } catch {
            checks.append(DeviceResponseVerifier.cborFailure(error, what: what, subject: subject))
            return nil
        }
    }

    static func parseRequest(_ bytes: [UInt8], decoding: CBORDecodingOptions, into checks: inout [CheckResult]) -> DeviceRequest? {
        guard let item = decode(bytes, options: decoding, what: "DeviceRequest", subject: "request", into: &checks) else { return nil }
        do {
            let request = try DeviceRequest(item)
            checks.append(CheckResult(.readerRequest, .pass, "DeviceRequest \(request.version), \(request.docRequests.count) doc request(s)"))
            return request
        } catch {
            checks.append(CheckResult(.readerRequest, .fail, "DeviceRequest: \(error)"))
            return nil
        }
    }

    static func handoverName(_ handover: CBOR) -> String {
        if handover.isNull { return "QR (null)" }
        if let array = handover.array, array.count == 2 { return "NFC negotiated" }
        if let array = handover.array, array.count == 1 { return "NFC static" }
        return "other"
    }

    /// The `engagement.*` checks of a decoded DeviceEngagement.
    static func checkEngagement(_ item: CBOR, into checks: inout [CheckResult]) -> DeviceEngagement? {
        let engagement: DeviceEngagement
        do {
            engagement = try DeviceEngagement(item)
        } catch {
            checks.append(CheckResult(.engagementStructure, .fail, "\(error)", subject: "engagement"))
            return nil
        }
        var evidence: [Evidence] = []
        if !engagement.unknownKeys.isEmpty {
            evidence.append(Evidence("unknownKeys", engagement.unknownKeys.joined(separator: ",")))
        }
        checks.append(CheckResult(.engagementStructure, .pass, "DeviceEngagement map", subject: "engagement", evidence: evidence))
        if engagement.version.hasPrefix("1.") {
            checks.append(CheckResult(.engagementVersion, .pass, "version \(engagement.version)", subject: "engagement"))
        } else {
            checks.append(CheckResult(.engagementVersion, .fail, "version \"\(engagement.version)\" is not 1.x", subject: "engagement"))
        }
        if engagement.cipherSuite == 1 {
            checks.append(CheckResult(.engagementCipherSuite, .pass, "cipher suite 1", subject: "engagement"))
        } else {
            checks.append(CheckResult(.engagementCipherSuite, .fail, "cipher suite \(engagement.cipherSuite) is not 1", subject: "engagement"))
        }
        do {
            let key = try engagement.eDeviceKey.publicKey()
            checks.append(CheckResult(.engagementDeviceKey, .pass, "\(key.curve) EDeviceKey", subject: "engagement"))
        } catch {
            checks.append(CheckResult(.engagementDeviceKey, .fail, "EDeviceKey is not a valid public key: \(error)", subject: "engagement"))
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
            checks.append(CheckResult(.engagementRetrievalMethods, .skipped, "no device retrieval method (server retrieval or NFC only)", subject: "engagement"))
        } else if problems.isEmpty {
            checks.append(CheckResult(
                .engagementRetrievalMethods, .pass, described.joined(separator: ", "), subject: "engagement", evidence: methodEvidence))
        } else {
            checks.append(CheckResult(
                .engagementRetrievalMethods, .fail, problems.joined(separator: "; "), subject: "engagement", evidence: methodEvidence))
        }
        return engagement
    }
}
