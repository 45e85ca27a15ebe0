public import MdocCBOR
public import MdocCOSE

/// ISO 18013-5 §8.3.2.1.2.2 DeviceSigned.
///
/// ```
/// DeviceSigned = { "nameSpaces": DeviceNameSpacesBytes, "deviceAuth": DeviceAuth }
/// DeviceNameSpacesBytes = #6.24(bstr .cbor DeviceNameSpaces)
/// DeviceNameSpaces = { * NameSpace => DeviceSignedItems }
/// DeviceSignedItems = { + DataElementIdentifier => DataElementValue }
/// DeviceAuth = { "deviceSignature": DeviceSignature // "deviceMac": DeviceMac }
/// ```
public struct DeviceSigned: Sendable {
    public enum Authentication: Sendable {
        case signature(COSESign1)
        case mac(COSEMac0)
    }

    /// DeviceNameSpacesBytes exactly as received (the tag-24 item): part of DeviceAuthentication.
    public let nameSpacesBytes: CBOR
    /// The device-signed elements: namespace → identifiers, in received order.
    public let elements: [(namespace: String, identifiers: [String])]
    public let authentication: Authentication

    public init(_ item: CBOR, path: String) throws {
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

extension DeviceSigned {
    /// The device-signed elements of DeviceNameSpacesBytes (the tag-24 item).
    static func elements(_ nameSpacesBytes: CBOR, path: String) throws -> [(namespace: String, identifiers: [String])] {
        // The usual DeviceNameSpaces, an empty map (`#6.24(<< {} >>)`): nothing to decode.
        if let embedded = nameSpacesBytes.embeddedBytes, embedded.count == 1, embedded.first == 0xa0 { return [] }
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

    /// A DeviceSigned of the usual shape read in place from its exact bytes, already checked
    /// well-formed under `options` (a value of a response read by ``DeviceResponseLayout``):
    /// a definite-length map of exactly `nameSpaces` (`#6.24(definite-length bstr)`) and
    /// `deviceAuth` (a definite-length map of exactly one of `deviceSignature` and
    /// `deviceMac`). What ``init(_:path:)`` gives for the item decoded from these bytes; `nil`
    /// for anything else, and whenever ``init(_:path:)`` would throw (the caller then decodes
    /// the general way, which reports what is wrong).
    public init?(usualShape bytes: ArraySlice<UInt8>, options: CBORDecodingOptions) {
        let spans: (nameSpaces: Range<Int>, auth: Range<Int>, isMac: Bool)? = CBORCursor.with(bytes) { cursor in
            guard cursor.mapCount() == 2 else { return nil }
            var nameSpaces: Range<Int>?
            var auth: (Range<Int>, Bool)?
            for _ in 0..<2 {
                guard let key = cursor.textString() else { return nil }
                let start = cursor.offset
                if key.count == 10, cursor.bytes(key, equal: "nameSpaces"), nameSpaces == nil {
                    guard cursor.tag() == 24, cursor.byteString() != nil else { return nil }
                    nameSpaces = start..<cursor.offset
                } else if key.count == 10, cursor.bytes(key, equal: "deviceAuth"), auth == nil {
                    guard cursor.mapCount() == 1, let name = cursor.textString() else { return nil }
                    let isMac: Bool
                    if name.count == 15, cursor.bytes(name, equal: "deviceSignature") {
                        isMac = false
                    } else if name.count == 9, cursor.bytes(name, equal: "deviceMac") {
                        isMac = true
                    } else {
                        return nil
                    }
                    let valueStart = cursor.offset
                    guard cursor.skip() else { return nil }
                    auth = (valueStart..<cursor.offset, isMac)
                } else {
                    return nil
                }
            }
            guard cursor.isAtEnd, let nameSpaces, let auth else { return nil }
            return (nameSpaces, auth.0, auth.1)
        }
        guard let spans else { return nil }
        func slice(_ span: Range<Int>) -> ArraySlice<UInt8>? { CBORCursor.slice(bytes, at: span) }
        guard let nameSpacesSlice = slice(spans.nameSpaces), let authSlice = slice(spans.auth),
            let nameSpacesBytes = try? CBOR(decoding: nameSpacesSlice, options: options),
            let elements = try? Self.elements(nameSpacesBytes, path: "deviceSigned")
        else { return nil }
        let authentication: Authentication
        if spans.isMac {
            guard let item = try? CBOR(decoding: authSlice, options: options), let mac = try? COSEMac0(item) else { return nil }
            authentication = .mac(mac)
        } else if let signature = COSESign1(usualShape: authSlice, options: options) {
            authentication = .signature(signature)
        } else {
            guard let item = try? CBOR(decoding: authSlice, options: options), let signature = try? COSESign1(item) else {
                return nil
            }
            authentication = .signature(signature)
        }
        self.nameSpacesBytes = nameSpacesBytes
        self.elements = elements
        self.authentication = authentication
    }
}

extension CBORMap {
    func requireMap(_ key: String, at path: @autoclosure () -> String) throws -> CBORMap { try requiredMap(key, at: path()) }
}
