import Foundation
import MdocCBOR
import MdocCrypto
import MdocTrustLists

/// A sample status list or identifier list token (Token Status List §5.2; 18013-5 second
/// edition §12.3.6), signed by a ``ListSigner``, for the tests and samples. The defaults make a
/// conforming token; the knobs make each defect a verifier must refuse.
package struct SampleStatusToken: Sendable {
    /// What the token lists.
    package enum Content: Sendable {
        /// A status list: one value per index (0 valid, 1 invalid, 2 suspended, ...), packed
        /// `bits` to an entry. Indexes past the end are out of range.
        case statusList(bits: Int, values: [UInt8])
        /// An identifier list: the identifiers of revoked documents.
        case identifierList([[UInt8]])
    }

    /// `sub`: the uri the MSO points to.
    package var uri: String
    package var issuedAt: Date
    /// `exp`; `nil` leaves it out (a defect).
    package var expiresAt: Date?
    package var timeToLive: UInt64? = 43_200
    package var content: Content
    package var aggregationURI: String?
    /// The protected `typ`; by default the content's media type. `""` leaves it out.
    package var type: String?
    package var x5chainInProtected = true
    /// Wrap the COSE_Sign1 in the CWT tag 61 (RFC 8392 §6).
    package var cwtTag = false

    package init(uri: String, issuedAt: Date, validFor seconds: TimeInterval, content: Content) {
        self.uri = uri
        self.issuedAt = issuedAt
        self.expiresAt = issuedAt.addingTimeInterval(seconds)
        self.content = content
    }

    /// The claims map.
    package func claims() throws -> CBORNode {
        var claims: [CBORNode.Entry] = [
            .init(.int(2), .text(uri)), .init(.int(6), .int(Int64(issuedAt.timeIntervalSince1970))),
        ]
        if let expiresAt { claims.append(.init(.int(4), .int(Int64(expiresAt.timeIntervalSince1970)))) }
        if let timeToLive { claims.append(.init(.int(65534), .unsigned(timeToLive))) }
        var list: [CBORNode.Entry] = []
        switch content {
        case .statusList(let bits, let values):
            guard let compressed = Zlib.deflate(StatusList.pack(values, bits: bits)) else {
                throw SampleError(.invalidOption, "the status list could not be compressed")
            }
            list = [.init("bits", .unsigned(UInt64(bits))), .init("lst", .bytes(compressed))]
        case .identifierList(let identifiers):
            list = [.init("identifiers", .map(identifiers.map { .init(.bytes($0), .map([CBORNode.Entry]())) }))]
        }
        if let aggregationURI { list.append(.init("aggregation_uri", .text(aggregationURI))) }
        claims.append(.init(.int(mediaKind.listClaim), .map(list)))
        return .map(claims)
    }

    var mediaKind: StatusTokenKind {
        if case .statusList = content { return .statusList }
        return .identifierList
    }

    /// The token signed by `signer`.
    package func signed(by signer: ListSigner) throws -> [UInt8] {
        let typ = type ?? mediaKind.mediaType
        let protected: [CBORNode.Entry] = typ.isEmpty ? [] : [.init(.int(16), .text(typ))]
        let message = try signer.sign(payload: claims().encoded(), protected: protected, x5chainInProtected: x5chainInProtected, tagged: true)
        return cwtTag ? [0xd8, 0x3d] + message : message
    }

    /// An MSO's `status` (18013-5 second edition §12.3.6) pointing at entry `index` of the status
    /// list at `statusListURI` and/or at `identifier` in the identifier list at
    /// `identifierListURI`, each with the root its signer chains to when given.
    package static func msoStatus(
        statusList: (index: UInt64, uri: String, certificate: Certificate?)? = nil,
        identifierList: (identifier: [UInt8], uri: String, certificate: Certificate?)? = nil
    ) -> CBORNode {
        var status: [CBORNode.Entry] = []
        if let statusList {
            var fields: [CBORNode.Entry] = [.init("idx", .unsigned(statusList.index)), .init("uri", .text(statusList.uri))]
            if let certificate = statusList.certificate { fields.append(.init("certificate", .bytes(certificate.der))) }
            status.append(.init("status_list", .map(fields)))
        }
        if let identifierList {
            var fields: [CBORNode.Entry] = [.init("id", .bytes(identifierList.identifier)), .init("uri", .text(identifierList.uri))]
            if let certificate = identifierList.certificate { fields.append(.init("certificate", .bytes(certificate.der))) }
            status.append(.init("identifier_list", .map(fields)))
        }
        return .map(status)
    }
}
