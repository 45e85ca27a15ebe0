import Foundation
package import MdocBLE
internal import MdocCBOR
internal import MdocChecks
internal import MdocCrypto
package import MdocModel
package import MdocPipeline
package import MdocVerification
import NIOConcurrencyHelpers

/// What one capture attempt produced, for its bundle and its record.
package struct ReaderSessionResult: Sendable {
    package var engagementURI: String
    package var plan: BLEPlan?
    /// The last state the session was in before it ended.
    package var stateReached: VerifierSession.State = .notStarted
    package var ending: CaptureRecord.Ending = .failed
    /// What ended the attempt early; nil when it completed.
    package var error: BLEError?
    package var deviceRequest: [UInt8]?
    package var sessionEstablishment: [UInt8]?
    /// The holder's messages, exactly as reassembled.
    package var sessionData: [[UInt8]] = []
    /// Whether a SessionData from the holder decrypted to a response.
    package var responseReceived = false
    /// The status the holder sent, if any (10, 11, 20).
    package var holderStatus: UInt64?
    /// The status this reader sent on a bad message (10 or 11), if any.
    package var readerStatus: UInt64?
    package var counters = BLECounters()
    package var mtu: Int?
    package var startedAt: Date
    package var endedAt: Date
    /// When the holder's first message arrived (nil when none did).
    package var firstResponseAt: Date?

    package init(engagementURI: String, startedAt: Date) {
        self.engagementURI = engagementURI
        self.startedAt = startedAt
        self.endedAt = startedAt
    }

    /// How the session of an attempt that did not complete ends (failed or cancelled); nil
    /// after a completed exchange, whose verdict decides.
    package var sessionEnding: VerifierSession.State? {
        switch ending {
        case .completed: nil
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }
}

/// The reader's side of one ISO 18013-5 session over BLE, driving the attempt's
/// ``VerifierSession`` through pre-flight → processing engagement → connecting → verifying
/// (once the exchange completed).
///
/// It makes the reader's ephemeral key on the engagement's curve, sends SessionEstablishment
/// with the encrypted DeviceRequest (readerAuth-signed when a ``ReaderAuthority`` is given),
/// decrypts the holder's SessionData, and ends the exchange with status 20 and 0x02 on State (or
/// status 10/11 when the holder's message does not decode or decrypt); the transport is closed.
/// Its key, the session keys and the decrypted response are the session's, which keeps them
/// until the pipeline, having written, verified and recorded the attempt, ends it (the ending
/// in ``ReaderSessionResult/sessionEnding``). Single use: ``run(preflight:)`` once.
package final class ReaderSession: Sendable {
    package let verifierSession: VerifierSession
    private let engagementURI: String
    private let request: ItemsRequestSpec
    private let authority: ReaderAuthority?
    private let preference: BLEModePreference
    private let timeouts: BLETimeouts
    private let messageLimit: Int
    private let makeTransport: @Sendable (BLEPlan) -> any BLETransport

    /// How long the end of a session (status 20, 0x02, disconnect) may take.
    package static let endTimeout: Duration = .seconds(3)

    package init(
        session: VerifierSession = VerifierSession(name: "capture"), engagementURI: String, request: ItemsRequestSpec,
        authority: ReaderAuthority?, preference: BLEModePreference = .auto, timeouts: BLETimeouts = BLETimeouts(),
        messageLimit: Int = BLEFraming.maxMessageBytes, makeTransport: @escaping @Sendable (BLEPlan) -> any BLETransport
    ) {
        self.verifierSession = session
        self.engagementURI = engagementURI.trimmingCharacters(in: .whitespacesAndNewlines)
        self.request = request
        self.authority = authority
        self.preference = preference
        self.timeouts = timeouts
        self.messageLimit = messageLimit
        self.makeTransport = makeTransport
    }

    /// Runs the attempt. `preflight` checks the adapter (a ``BLEError`` ends the attempt
    /// there). Never throws: every ending is in the result; the session is left in the state
    /// it reached (verifying after a completed exchange) for the pipeline to end.
    package func run(preflight: () async throws -> Void) async -> ReaderSessionResult {
        var result = ReaderSessionResult(engagementURI: engagementURI, startedAt: Date())
        let transport = NIOLockedValueBox<(any BLETransport)?>(nil)
        do {
            advance(.preflight, &result)
            try await preflight()
            advance(.processingEngagement, &result)
            let prepared = try prepare(&result)
            advance(.connecting, &result)
            let link = makeTransport(prepared.plan)
            transport.withLockedValue { $0 = link }
            verifierSession.own(link)
            try await exchange(over: link, prepared, &result)
            result.ending = .completed
        } catch let error as BLEError {
            result.error = error
            result.ending = .failed
        } catch is CancellationError {
            result.error = .cancelled
            result.ending = .cancelled
        } catch {
            result.error = BLEError(.bleGatt, "\(error)")
            result.ending = .failed
        }
        // The end, the disconnection and the unregistration run even when the task is cancelled.
        if let link = transport.withLockedValue({ $0 }) {
            let ending = result.ending
            let sentStatus = result.readerStatus != nil || result.holderStatus != nil
            await Task {
                await Self.end(link, ending: ending, sentStatus: sentStatus)
                await link.close()
            }.value
        }
        result.endedAt = Date()
        if result.ending == .completed { verifierSession.transition(to: .verifying) }
        return result
    }

    /// Moves to `next` and notes it as the state reached.
    private func advance(_ next: VerifierSession.State, _ result: inout ReaderSessionResult) {
        verifierSession.transition(to: next)
        result.stateReached = next
    }

    private struct Prepared {
        var plan: BLEPlan
        var establishment: [UInt8]
    }

    /// The engagement, the reader's key, the session keys and SessionEstablishment.
    private func prepare(_ result: inout ReaderSessionResult) throws -> Prepared {
        let engagement: DeviceEngagement
        do {
            engagement = try DeviceEngagement(try CBOR(decoding: try DeviceEngagement.bytes(fromURI: engagementURI)))
        } catch {
            throw BLEError(.bleEngagement, "the engagement cannot be read: \(error)")
        }
        let plan = try BLEPlan.choose(engagement, preference: preference)
        result.plan = plan
        do {
            let eDeviceKey = try engagement.eDeviceKey.publicKey()
            let readerKey = try PrivateKey.generate(curve: eDeviceKey.curve)
            let eReaderKeyBytes = try ReaderMessages.eReaderKeyBytes(readerKey.publicKey)
            let engagementBytes = CBORNode.embedded(raw: engagement.encoded).encoded()
            let transcript = try SessionTranscript(deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: eReaderKeyBytes[...])
            let keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: eDeviceKey, transcript: transcript)
            verifierSession.keep(keys)
            var pem = Array(try readerKey.pkcs8PEM().utf8)
            verifierSession.keep(readerKeyPEM: &pem)

            let itemsRequestBytes = request.itemsRequestBytes()
            let readerAuth = try authority.map {
                try ReaderMessages.readerAuth(
                    transcript: transcript, itemsRequestBytes: itemsRequestBytes, key: $0.key, certificates: $0.certificates)
            }
            let deviceRequest = ReaderMessages.deviceRequest(itemsRequestBytes: itemsRequestBytes, readerAuth: readerAuth)
            let establishment = ReaderMessages.sessionEstablishment(
                eReaderKeyBytes: eReaderKeyBytes, data: try keys.encrypt(deviceRequest, direction: .readerToDevice, counter: 1))
            result.deviceRequest = deviceRequest
            result.sessionEstablishment = establishment
            return Prepared(plan: plan, establishment: establishment)
        } catch {
            throw BLEError(.bleEngagement, "cannot set up the session with the engagement's key: \(error)")
        }
    }

    /// Opens the link, sends SessionEstablishment, reads the holder's SessionData until it
    /// answers or ends the session.
    private func exchange(over link: any BLETransport, _ prepared: Prepared, _ result: inout ReaderSessionResult) async throws {
        let channel = BLEMessageChannel(transport: link, limit: messageLimit)
        defer {
            result.counters = channel.counters
            result.mtu = link.mtu
        }
        let start = ContinuousClock.now
        let sessionDeadline = start + timeouts.session
        try await link.open(until: min(start + timeouts.connect, sessionDeadline))
        result.mtu = link.mtu
        try await channel.send(prepared.establishment)
        let firstDeadline = min(ContinuousClock.now + timeouts.firstResponse, sessionDeadline)
        var counter: UInt32 = 0
        while true {
            let waiting = result.sessionData.isEmpty
            let received = try await channel.receive(
                until: waiting ? firstDeadline : sessionDeadline, phase: waiting ? .firstResponse : .session)
            guard case .message(let message) = received else {
                // 0x02 on State from the holder.
                if result.responseReceived || result.holderStatus != nil { return }
                throw BLEError(.bleDisconnected, "the holder ended the session (0x02 on State) without answering")
            }
            if result.firstResponseAt == nil { result.firstResponseAt = Date() }
            result.sessionData.append(message)
            let data: SessionData
            do {
                data = try SessionData(try CBOR(decoding: message))
            } catch {
                try await reply(status: ReaderMessages.Status.decodingError, channel, &result)
                return
            }
            if let ciphertext = data.data {
                counter &+= 1
                do {
                    let plain = try verifierSession.withSessionKeys { keys -> [UInt8] in
                        guard let keys else { throw BLEError(.bleGatt, "the session keys are gone") }
                        return try keys.decrypt(ciphertext, direction: .deviceToReader, counter: counter)
                    }
                    verifierSession.keep(plaintext: plain)
                    result.responseReceived = true
                } catch let error as BLEError {
                    throw error
                } catch {
                    try await reply(status: ReaderMessages.Status.encryptionError, channel, &result)
                    return
                }
            }
            if let status = data.status {
                result.holderStatus = status
                return
            }
            if result.responseReceived { return }
        }
    }

    /// Answers a message that does not decode (11) or decrypt (10) with that status.
    private func reply(status: UInt64, _ channel: BLEMessageChannel, _ result: inout ReaderSessionResult) async throws {
        result.readerStatus = status
        try await channel.send(ReaderMessages.sessionData(status: status))
    }

    /// Ends the session toward the holder, best effort and bounded by ``endTimeout``: SessionData
    /// status 20 (unless a status was already exchanged), then 0x02 on State.
    private static func end(_ link: any BLETransport, ending: CaptureRecord.Ending, sentStatus: Bool) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                if !sentStatus && ending != .failed {
                    try? await BLEMessageChannel(transport: link).send(ReaderMessages.sessionData(status: ReaderMessages.Status.termination))
                }
                try? await link.send(state: BLEStateValue.end)
            }
            group.addTask { try? await Task.sleep(for: endTimeout) }
            await group.next()
            group.cancelAll()
        }
    }
}
