package import MdocCBOR

/// ISO 18013-5 §8.3.2.1.2.2 DeviceResponse, top level.
///
/// ```
/// DeviceResponse = { "version": tstr, ? "documents": [+Document],
///                    ? "documentErrors": [+DocumentError], "status": uint }
/// ```
/// Documents are kept as items and decoded one by one with ``Document/init(_:path:)``, so that
/// one malformed document does not hide the others.
package struct DeviceResponse: Sendable {
    package let item: CBOR
    package let version: String
    package let documents: CBORArray
    /// DocumentError = { DocType => ErrorCode }, flattened.
    package let documentErrors: [(docType: String, code: Int64)]
    package let status: UInt64

    package init(_ item: CBOR) throws {
        let path = "DeviceResponse"
        let map = try item.requireMap(at: path)
        self.item = item
        self.version = try map.requiredText("version", at: path)
        self.status = try map.requiredUInt("status", at: path)
        if let documents = map.arrayValue(forKey: "documents") {
            guard let array = documents else {
                throw ModelError(.wrongType, "\(path).documents", "documents is not an array")
            }
            self.documents = array
        } else {
            self.documents = .empty
        }
        var errors: [(String, Int64)] = []
        if let documentErrors = map["documentErrors"] {
            guard let array = documentErrors.array else {
                throw ModelError(.wrongType, "\(path).documentErrors", "documentErrors is not an array")
            }
            for (i, entry) in array.enumerated() {
                guard let errorMap = entry.map else {
                    throw ModelError(.wrongType, "\(path).documentErrors[\(i)]", "DocumentError is not a map")
                }
                for pair in errorMap {
                    guard let docType = pair.key.text, let code = pair.value.int else {
                        throw ModelError(
                            .wrongType, "\(path).documentErrors[\(i)]", "DocumentError is not DocType => ErrorCode")
                    }
                    errors.append((docType, code))
                }
            }
        }
        self.documentErrors = errors
    }

    /// The meaning of a DeviceResponse status code (§8.3.2.1.2.3, Table 8).
    package static func statusMeaning(_ status: UInt64) -> String {
        switch status {
        case 0: "OK"
        case 10: "general error"
        case 11: "CBOR decoding error"
        case 12: "CBOR validation error"
        default: "unknown status"
        }
    }
}

/// ISO 18013-5 §8.3.2.1.2.2 Document.
///
/// ```
/// Document = { "docType": DocType, "issuerSigned": IssuerSigned,
///              "deviceSigned": DeviceSigned, ? "errors": Errors }
/// ```
package struct Document: Sendable {
    package let docTypeItem: CBOR
    package let docType: String
    package let issuerSigned: IssuerSigned
    /// `nil` when absent (a structure failure the verifier reports; kept optional so the issuer
    /// side can still be checked).
    package let deviceSignedItem: CBOR?
    /// Errors = { + NameSpace => { + DataElementIdentifier => ErrorCode } }, flattened.
    package let errors: [(namespace: String, identifier: String, code: Int64)]

    package init(_ item: CBOR, path: String) throws {
        let map = try item.requireMap(at: path)
        let docTypeItem = try map.required("docType", at: path)
        guard let docType = WellKnownText.text(docTypeItem) else {
            throw ModelError(.wrongType, "\(path).docType", "docType is not a text string")
        }
        self.docTypeItem = docTypeItem
        self.docType = docType
        self.issuerSigned = try IssuerSigned(try map.required("issuerSigned", at: path), path: "\(path).issuerSigned")
        self.deviceSignedItem = map["deviceSigned"]
        var errors: [(String, String, Int64)] = []
        if let errorsItem = map["errors"] {
            let errorsMap = try errorsItem.requireMap(at: "\(path).errors")
            for namespace in errorsMap {
                guard let ns = namespace.key.text, let items = namespace.value.map else {
                    throw ModelError(.wrongType, "\(path).errors", "Errors is not NameSpace => ErrorItems")
                }
                for element in items {
                    guard let id = element.key.text, let code = element.value.int else {
                        throw ModelError(.wrongType, "\(path).errors.\(ns)", "ErrorItems is not id => ErrorCode")
                    }
                    errors.append((ns, id, code))
                }
            }
        }
        self.errors = errors
    }
}

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSigned.
///
/// ```
/// IssuerSigned = { ? "nameSpaces": IssuerNameSpaces, "issuerAuth": IssuerAuth }
/// IssuerNameSpaces = { + NameSpace => [ + IssuerSignedItemBytes ] }
/// ```
package struct IssuerSigned: Sendable {
    /// Namespaces in received order, each with its IssuerSignedItemBytes items (`#6.24`).
    package let nameSpaces: [(namespace: String, items: CBORArray)]
    package let issuerAuthItem: CBOR

    /// `path` names the structure in errors; it is built only when an error needs it.
    package init(_ item: CBOR, path: @autoclosure () -> String) throws {
        let map = try item.requireMap(at: path())
        self.issuerAuthItem = try map.required("issuerAuth", at: path())
        var nameSpaces: [(String, CBORArray)] = []
        if let nsMapFound = map.mapValue(forKey: "nameSpaces") {
            guard let nsMap = nsMapFound else { throw ModelError(.wrongType, "\(path()).nameSpaces", "not a map") }
            nameSpaces.reserveCapacity(nsMap.count)
            for entry in nsMap {
                guard let namespace = WellKnownText.text(entry.key) else {
                    throw ModelError(.wrongType, "\(path()).nameSpaces", "a NameSpace key is not a text string")
                }
                guard let items = entry.value.array else {
                    throw ModelError(.wrongType, "\(path()).nameSpaces.\(namespace)", "not an array of IssuerSignedItemBytes")
                }
                nameSpaces.append((namespace, items))
            }
        }
        self.nameSpaces = nameSpaces
    }
}

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSignedItem, decoded from its IssuerSignedItemBytes.
///
/// ```
/// IssuerSignedItemBytes = #6.24(bstr .cbor IssuerSignedItem)
/// IssuerSignedItem = { "digestID": uint, "random": bstr,
///                      "elementIdentifier": DataElementIdentifier, "elementValue": DataElementValue }
/// ```
/// The value digest of §9.1.2.5 is computed over ``itemBytes`` — the whole tag-24 item exactly
/// as received — never over a re-encoding.
package struct IssuerSignedItem: Sendable {
    /// The encoded `#6.24(bstr)` exactly as received: what the MSO digest covers.
    package let itemBytes: ArraySlice<UInt8>
    package let digestID: UInt64
    package let elementIdentifier: String
    /// The item's map: `random` and `elementValue`, checked while reading, are made from it on
    /// request (a slice and an item per element cost retains that most readers never use).
    let map: CBORMap
    let keepsValue: Bool

    /// The salt (checked to be a byte string while reading).
    package var random: ArraySlice<UInt8> { map["random"]?.bytes ?? [] }
    /// The element value; `nil` when read with `decodingValue: false`.
    package var elementValue: CBOR? { keepsValue ? map["elementValue"] : nil }

    /// Reads IssuerSignedItemBytes. With `decodingValue: false` the element value is checked
    /// well-formed (the decoder reads it) but not kept: the verifier keeps no values by default.
    package init(_ item: CBOR, path: String, decodingValue: Bool = true) throws {
        let inner = try item.requireEmbedded(at: path)
        let map = try inner.requireMap(at: path)
        let digestID = try map.requiredUInt("digestID", at: path)
        guard let randomIsBytes = map.hasBytesValue(forKey: "random") else {
            throw ModelError(.missingField, "\(path).random", "random is missing")
        }
        guard randomIsBytes else {
            throw ModelError(.wrongType, "\(path).random", "random is not a byte string")
        }
        let elementIdentifier = try map.requiredText("elementIdentifier", at: path)
        guard map.containsKey("elementValue") else {
            throw ModelError(.missingField, "\(path).elementValue", "elementValue is missing")
        }
        self.itemBytes = item.encoded
        self.digestID = digestID
        self.elementIdentifier = elementIdentifier
        self.map = map
        self.keepsValue = decodingValue
    }
}
