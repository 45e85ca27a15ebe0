package import Foundation
package import MdocCrypto
import MdocTime

/// What a status folder says of a document's status reference at one instant (18013-5 second
/// edition §12.3.6): the facts a check turns into a result. ``Outcome/unknown(_:)`` means no
/// usable token exists (none fetched, none current, bad signature, untrusted signer); it is
/// not a verdict on the document.
package struct StatusResolution: Sendable {
    package enum Outcome: Sendable, Hashable {
        /// Status 0x00, or the identifier is not listed.
        case valid
        /// Status 0x01 (invalid), or the identifier is listed: revoked.
        case revoked
        /// Status 0x02: suspended.
        case suspended
        /// An application-specific status (0x03, 0x0C–0x0F) or a reserved one.
        case other(StatusValue)
        /// The MSO's index is not in the list: a failure, the reference is wrong.
        case indexOutOfRange(index: UInt64, count: Int)
        /// No usable token: why.
        case unknown(TrustListError)
    }

    /// The instant judged.
    package let time: Date
    package let outcome: Outcome
    /// The token the outcome comes from (for the evidence: file, iat, exp); `nil` when unknown
    /// for want of any token.
    package let token: StatusFolder.Entry?
    /// The token signer's validation at ``time``; `nil` when no token was judged.
    package let signer: SignerValidation?
    /// ``time`` is past the token's `iat + ttl`: a fresh token should have been fetched.
    package var isPastTimeToLive: Bool { token?.claims.isPastTimeToLive(at: time) ?? false }
}

extension StatusFolder {
    /// The status of the document that `reference` points to, at `time`, from the newest token
    /// answering its uri whose [iat, exp] covers `time` and whose signature and signer (chained
    /// to one of `roots`, valid at `time`) hold. `roots` are the caller's: the MSO's
    /// `certificate` when it names one, the document's IACA otherwise.
    package func resolve(_ reference: MSOStatus.StatusListReference, roots: [Certificate], at time: Date) -> StatusResolution {
        resolve(kind: .statusList, uri: reference.uri, roots: roots, at: time) { token in
            guard case .statusList(let list) = token else { return .unknown(TrustListError(.tokenWrongType, "not a status list")) }
            guard let status = list.status(at: reference.index) else {
                return .indexOutOfRange(index: reference.index, count: list.list.count)
            }
            switch status {
            case .valid: return .valid
            case .invalid: return .revoked
            case .suspended: return .suspended
            default: return .other(status)
            }
        }
    }

    /// Whether the document's identifier is in the identifier list its reference points to, at
    /// `time`, the token chosen and judged as for a status list.
    package func resolve(_ reference: MSOStatus.IdentifierListReference, roots: [Certificate], at time: Date) -> StatusResolution {
        resolve(kind: .identifierList, uri: reference.uri, roots: roots, at: time) { token in
            guard case .identifierList(let list) = token else {
                return .unknown(TrustListError(.tokenWrongType, "not an identifier list"))
            }
            return list.contains(reference.identifier) ? .revoked : .valid
        }
    }

    /// The first usable token among the candidates, read by `read`; the first candidate's
    /// failure when none is usable.
    private func resolve(
        kind: StatusTokenKind, uri: String, roots: [Certificate], at time: Date, read: (StatusToken) -> StatusResolution.Outcome
    ) -> StatusResolution {
        let positions = positions(kind, answering: uri)
        guard !positions.isEmpty else {
            return StatusResolution(
                time: time, outcome: .unknown(TrustListError(.noToken, "no \(kind.mediaType) token of the folder answers \(uri)")),
                token: nil, signer: nil)
        }
        var firstFailure: StatusResolution?
        for position in positions where entries[position].claims.covers(time) {
            let entry = entries[position]
            let signer = signer(of: position, roots: roots, at: time)
            guard let failure = entry.signature.failure ?? signer.chain.failure ?? signer.validity.failure else {
                return StatusResolution(time: time, outcome: read(entry.token), token: entry, signer: signer)
            }
            if firstFailure == nil {
                firstFailure = StatusResolution(time: time, outcome: .unknown(failure), token: entry, signer: signer)
            }
        }
        if let firstFailure { return firstFailure }
        return StatusResolution(
            time: time,
            outcome: .unknown(
                TrustListError(.noCurrentToken, "\(positions.count) token(s) answer \(uri), but none is current at \(RFC3339.format(time))")),
            token: nil, signer: nil)
    }
}
