package import MdocChecks

/// Why a BLE capture ended before its time: a `ble.*` check id as the stable code, and a
/// reason for people (identifiers and sizes only, never what the holder sent).
package struct BLEError: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: CheckID
    package let reason: String
    /// Named values for the record (phase of a timeout, bytes received, ...).
    package let evidence: [Evidence]

    package init(_ code: CheckID, _ reason: String, evidence: [Evidence] = []) {
        self.code = code
        self.reason = reason
        self.evidence = evidence
    }

    package var description: String { "\(code.rawValue): \(reason)" }

    /// Equality on the code only (the reason is for people).
    package static func == (lhs: BLEError, rhs: BLEError) -> Bool { lhs.code == rhs.code }

    package static func timeout(_ phase: BLEPhase, _ reason: String) -> BLEError {
        BLEError(.bleTimeout, reason, evidence: [Evidence("phase", phase.rawValue)])
    }

    package static let cancelled = BLEError(.bleCancelled, "cancelled by the operator")
}

/// The part of a capture a timeout cut short.
package enum BLEPhase: String, Sendable {
    /// Finding the holder and connecting (or, in central client mode, waiting for it to connect).
    case connect
    /// Waiting for the holder's first answer (the holder may be asking its user for consent).
    case firstResponse
    /// The whole session.
    case session
}
