/// The two BLE modes of ISO 18013-5 §8.3.3.1.1, named from the mdoc's side.
package enum BLEMode: String, Sendable, CaseIterable {
    /// The mdoc is the peripheral and GATT server; the reader scans, connects and is the GATT client.
    case peripheralServer = "peripheral-server"
    /// The mdoc is the central and GATT client; the reader advertises and is the GATT server.
    case centralClient = "central-client"
}

/// The GATT characteristics of one mode (§8.3.3.1.1.4, Tables 11 and 12).
package struct BLECharacteristics: Sendable, Equatable {
    package let state: String
    package let client2Server: String
    package let server2Client: String
    /// Central client mode only: the reader's Ident, read by the mdoc.
    package let ident: String?

    /// 00000001–00000003 with the standard's suffix.
    package static let peripheralServer = BLECharacteristics(
        state: uuid(0x01), client2Server: uuid(0x02), server2Client: uuid(0x03), ident: nil)
    /// 00000005–00000008 with the standard's suffix.
    package static let centralClient = BLECharacteristics(
        state: uuid(0x05), client2Server: uuid(0x06), server2Client: uuid(0x07), ident: uuid(0x08))

    package static func of(_ mode: BLEMode) -> BLECharacteristics {
        mode == .peripheralServer ? .peripheralServer : .centralClient
    }

    static func uuid(_ number: UInt8) -> String {
        "000000" + String(format2: number) + "-a123-48ce-896b-4c76973373e6"
    }
}

/// The values written to or notified on the State characteristic (§8.3.3.1.1.5, Table 13).
package enum BLEStateValue {
    /// The reader may start (written by the GATT client).
    package static let start: UInt8 = 0x01
    /// End of the session.
    package static let end: UInt8 = 0x02
}

/// A 128-bit UUID as BlueZ writes it: lower-case hex, 8-4-4-4-12.
package enum BLEUUID {
    /// The text form of 16 bytes; nil for another length.
    package static func string(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.count == 16 else { return nil }
        var out = ""
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out += "-" }
            out += String(format2: byte)
        }
        return out
    }
}

extension String {
    /// Two lower-case hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }
}
