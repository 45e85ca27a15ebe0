package import MdocCBOR
package import MdocCOSE

/// ISO 18013-5 §8.3.2.1.2.2 DeviceSigned.
///
/// ```
/// DeviceSigned = { "nameSpaces": DeviceNameSpacesBytes, "deviceAuth": DeviceAuth }
/// DeviceNameSpacesBytes = #6.24(bstr .cbor DeviceNameSpaces)
/// DeviceNameSpaces = { * NameSpace => DeviceSignedItems }
/// DeviceSignedItems = { + DataElementIdentifier => DataElementValue }
/// DeviceAuth = { "deviceSignature": DeviceSignature // "deviceMac": DeviceMac }
/// ```
package struct DeviceSigned: Sendable {
    package enum Authentication: Sendable {
        case signature(COSESign1)
        case mac(COSEMac0)

        package var kind: DeviceAuthenticationKind {
            switch self {
            case .signature: .signature
            case .mac: .mac
            }
        }
    }

    /// DeviceNameSpacesBytes exactly as received (the tag-24 item): part of DeviceAuthentication.
    package let nameSpacesBytes: CBOR
    /// The device-signed elements: namespace → identifiers, in received order.
    package let elements: [(namespace: String, identifiers: [String])]
    package let authentication: Authentication

    package init(_ item: CBOR, path: String) throws {
        let map = try item.requireMap(at: path)
        let nameSpacesBytes = try map.required("nameSpaces", at: path)
        self.elements = try Self.elements(nameSpacesBytes, path: path)
        self.nameSpacesBytes = nameSpacesBytes

        let auth = try map.requireMap("deviceAuth", at: path)
        switch (auth["deviceSignature"], auth["deviceMac"]) {
        case (let signature?, nil):
            do {
                self.authentication = .signature(try COSESign1(signature))
            } catch {
                throw ModelError(.invalidValue, "\(path).deviceAuth.deviceSignature", "\(error)")
            }
        case (nil, let mac?):
            do {
                self.authentication = .mac(try COSEMac0(mac))
            } catch {
                throw ModelError(.invalidValue, "\(path).deviceAuth.deviceMac", "\(error)")
            }
        case (.some, .some):
            throw ModelError(.invalidValue, "\(path).deviceAuth", "both deviceSignature and deviceMac are present")
        case (nil, nil):
            throw ModelError(.missingField, "\(path).deviceAuth", "neither deviceSignature nor deviceMac is present")
        }
    }
}

/// How the mdoc authenticates a document (§9.1.3): DeviceAuth's deviceSignature or deviceMac.
package enum DeviceAuthenticationKind: String, Sendable, CaseIterable {
    case signature = "deviceSignature"
    case mac = "deviceMac"
}

extension DeviceSigned {
    /// The device-signed elements of DeviceNameSpacesBytes (the tag-24 item).
    static func elements(_ nameSpacesBytes: CBOR, path: String) throws -> [(namespace: String, identifiers: [String])] {
        let nameSpaces = try nameSpacesBytes.requireEmbedded(at: "\(path).nameSpaces")
        var elements: [(String, [String])] = []
        for entry in try nameSpaces.requireMap(at: "\(path).nameSpaces") {
            guard let namespace = entry.key.text, let items = entry.value.map else {
                throw ModelError(.wrongType, "\(path).nameSpaces", "not NameSpace => DeviceSignedItems")
            }
            var identifiers: [String] = []
            for element in items {
                guard let id = element.key.text else {
                    throw ModelError(.wrongType, "\(path).nameSpaces.\(namespace)", "an identifier is not text")
                }
                identifiers.append(id)
            }
            elements.append((namespace, identifiers))
        }
        return elements
    }
}

extension CBORMap {
    func requireMap(_ key: String, at path: @autoclosure () -> String) throws -> CBORMap { try requiredMap(key, at: path()) }
}
