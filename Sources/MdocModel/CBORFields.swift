package import MdocCBOR

/// Field access that turns a missing or mistyped field into a ``ModelError`` naming its path.
/// Paths are autoclosures: they are built (interpolated) only when an error names them.
extension CBORMap {
    func required(_ key: String, at path: @autoclosure () -> String) throws -> CBOR {
        guard let value = self[key] else {
            throw ModelError(.missingField, "\(path()).\(key)", "\(key) is missing")
        }
        return value
    }

    // The typed lookups read the value in place (CBORMap.textValue(forKey:) ...): the same
    // answers and errors as required(_:at:) followed by the accessor, without copying the item.

    func requiredText(_ key: String, at path: @autoclosure () -> String) throws -> String {
        guard let found = textValue(forKey: key) else {
            throw ModelError(.missingField, "\(path()).\(key)", "\(key) is missing")
        }
        guard let text = found else {
            throw ModelError(.wrongType, "\(path()).\(key)", "\(key) is not a text string")
        }
        return text
    }

    /// ``requiredText(_:at:)`` for a docType or namespace (``WellKnownText``).
    func requiredWellKnownText(_ key: String, at path: @autoclosure () -> String) throws -> String {
        let item = try required(key, at: path())
        guard let text = WellKnownText.text(item) else {
            throw ModelError(.wrongType, "\(path()).\(key)", "\(key) is not a text string")
        }
        return text
    }

    func requiredMap(_ key: String, at path: @autoclosure () -> String) throws -> CBORMap {
        guard let found = mapValue(forKey: key) else {
            throw ModelError(.missingField, "\(path()).\(key)", "\(key) is missing")
        }
        guard let map = found else { throw ModelError(.wrongType, "\(path()).\(key)", "\(key) is not a map") }
        return map
    }

    func requiredArray(_ key: String, at path: @autoclosure () -> String) throws -> CBORArray {
        guard let found = arrayValue(forKey: key) else {
            throw ModelError(.missingField, "\(path()).\(key)", "\(key) is missing")
        }
        guard let array = found else { throw ModelError(.wrongType, "\(path()).\(key)", "\(key) is not an array") }
        return array
    }

    func requiredUInt(_ key: String, at path: @autoclosure () -> String) throws -> UInt64 {
        guard let found = unsignedValue(forKey: key) else {
            throw ModelError(.missingField, "\(path()).\(key)", "\(key) is missing")
        }
        guard let value = found else {
            throw ModelError(.wrongType, "\(path()).\(key)", "\(key) is not an unsigned integer")
        }
        return value
    }
}

extension CBOR {
    /// The map, or a ``ModelError`` naming `path`.
    func requireMap(at path: @autoclosure () -> String) throws -> CBORMap {
        guard let map else { throw ModelError(.wrongType, path(), "not a map") }
        return map
    }

    /// Decodes `#6.24(bstr .cbor X)` and returns X, or a ``ModelError`` naming `path`.
    func requireEmbedded(at path: @autoclosure () -> String) throws -> CBOR {
        // Decoded first: the usual item needs no other look at its tag and content.
        do {
            return try decodeEmbedded()
        } catch {
            guard tag == 24, embeddedBytes != nil else {
                throw ModelError(.invalidEmbedded, path(), "not #6.24(bstr) embedded CBOR")
            }
            throw ModelError(.invalidEmbedded, path(), "the embedded CBOR is not well-formed: \(error)")
        }
    }
}

/// The mDL's docType and namespace (18013-5 §7.1), which nearly every document carries several
/// times: a decoded text equal to one is returned as the literal, which needs no allocation (the
/// two are longer than a small string) and no reference counting.
enum WellKnownText {
    /// The text of `item`, `nil` when it is not a text string.
    static func text(_ item: CBOR) -> String? {
        if item.isText("org.iso.18013.5.1") { return "org.iso.18013.5.1" }
        if item.isText("org.iso.18013.5.1.mDL") { return "org.iso.18013.5.1.mDL" }
        return item.text
    }
}
