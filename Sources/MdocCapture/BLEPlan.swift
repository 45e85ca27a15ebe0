package import MdocBLE
internal import MdocCBOR
internal import MdocChecks
package import MdocModel

/// Which BLE mode `capture` uses: the one asked for, or (auto) peripheral server mode when the
/// holder offers it (the reader is then a plain GATT client), else central client mode.
package enum BLEModePreference: String, Sendable, CaseIterable {
    case auto
    case peripheralServer = "peripheral-server"
    case centralClient = "central-client"
}

/// How to reach the holder, from its engagement's BLE retrieval options (§8.2.2.2, Table 10).
package struct BLEPlan: Sendable, Equatable {
    package var mode: BLEMode
    /// The service UUID of that mode (option 10 or 11), as text.
    package var serviceUUID: String
    /// Central client mode: the Ident characteristic's value.
    package var ident: [UInt8]?

    package static func choose(_ engagement: DeviceEngagement, preference: BLEModePreference) throws(BLEError) -> BLEPlan {
        guard let options = engagement.retrievalMethods.first(where: { $0.type == 2 })?.options.map else {
            throw BLEError(.bleEngagement, "the engagement offers no BLE retrieval (only \(Self.methods(engagement)))")
        }
        func uuid(_ flag: Int64, _ key: Int64) -> String? {
            guard options[key: flag]?.bool == true, let bytes = options[key: key]?.bytes else { return nil }
            return BLEUUID.string(bytes)
        }
        let peripheral = uuid(0, 10)
        let central = uuid(1, 11)
        let mode: BLEMode
        switch preference {
        case .peripheralServer:
            guard peripheral != nil else { throw BLEError(.bleEngagement, "the holder does not offer peripheral server mode (with its UUID)") }
            mode = .peripheralServer
        case .centralClient:
            guard central != nil else { throw BLEError(.bleEngagement, "the holder does not offer central client mode (with its UUID)") }
            mode = .centralClient
        case .auto:
            guard peripheral != nil || central != nil else {
                throw BLEError(.bleEngagement, "the engagement's BLE options name neither mode with a 16-byte UUID")
            }
            mode = peripheral != nil ? .peripheralServer : .centralClient
        }
        guard let serviceUUID = mode == .peripheralServer ? peripheral : central else {
            throw BLEError(.bleEngagement, "no service UUID for \(mode.rawValue) mode")
        }
        var ident: [UInt8]?
        if mode == .centralClient {
            do {
                ident = try BLEIdent.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes.encoded)
            } catch {
                throw BLEError(.bleEngagement, "cannot compute Ident: \(error)")
            }
        }
        return BLEPlan(mode: mode, serviceUUID: serviceUUID, ident: ident)
    }

    static func methods(_ engagement: DeviceEngagement) -> String {
        let names = engagement.retrievalMethods.map(\.typeName)
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
