internal import Foundation
package import MdocSeal

/// The HTTP face of the sync protocol (`docs/openapi.yaml`): paths, media types and how each
/// refusal maps to a status.
package enum SyncProtocol {
    /// `POST`: one signed batch of sealed records (a ``SyncRequest``); answered with a signed receipt.
    package static let batchesPath = "/v1/batches"
    /// `GET`: the intake is up.
    package static let healthPath = "/v1/health"
    /// A signed receipt: a COSE_Sign1 (RFC 9052 §9).
    package static let receiptMediaType = "application/cose; cose-type=\"cose-sign1\""
    /// A refusal's body: `{"code": ..., "message": ...}`.
    package static let problemMediaType = "application/json"
    /// Longest receipt or problem body a kiosk reads.
    package static let maximumResponseByteCount = 16 << 20

    /// The HTTP status of a refusal.
    package static func status(for code: SyncRefusal.Code) -> Int {
        switch code {
        case .malformed, .hashMismatch: 400
        case .badSignature: 401
        case .unknownKiosk: 403
        case .staleCounter: 409
        case .tooLarge: 413
        case .storageFull: 507
        default: 503
        }
    }

    /// The code the refusal media type refers to when the body is not a problem (a proxy's page).
    package static let unsupportedMediaType = SyncRefusal.Code(rawValue: "request.unsupportedMediaType")

    struct Problem: Codable {
        var code: String
        var message: String
    }

    static func problemBody(_ refusal: SyncRefusal) -> [UInt8] {
        let problem = Problem(code: refusal.code.rawValue, message: refusal.reason)
        return (try? Array(JSONEncoder().encode(problem))) ?? Array(#"{"code":"intake.unavailable","message":""}"#.utf8)
    }

    static func refusal(status: Int, body: [UInt8]) -> SyncRefusal {
        if let problem = try? JSONDecoder().decode(Problem.self, from: Data(body)) {
            return SyncRefusal(SyncRefusal.Code(rawValue: problem.code), problem.message)
        }
        return SyncRefusal(.unavailable, "the centre answered HTTP \(status) without a problem body")
    }
}
