import MdocCBOR
import MdocCrypto
import MdocTrust

enum MdocCBORTestHelpers {
    /// The documents of an encoded DeviceResponse, as raw nodes to re-assemble.
    static func documents(_ response: [UInt8]) throws -> [CBORNode] {
        let item = try CBOR(decoding: response)
        return (item.map?["documents"]?.array ?? .empty).map { CBORNode.raw($0.encoded) }
    }
}

enum TrustStoreHelpers {
    static func merged(_ stores: TrustStore...) -> TrustStore {
        TrustStore(anchors: stores.flatMap(\.anchors), crls: stores.flatMap(\.crls))
    }
}
