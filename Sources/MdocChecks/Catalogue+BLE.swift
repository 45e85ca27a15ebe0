extension CheckID {
    /// The live BLE exchange ran to its end: connected, request sent, the holder's answer received whole.
    package static let bleCapture = CheckID("ble.capture")
    /// The engagement offers a BLE mode this reader can use, with its service UUID.
    package static let bleEngagement = CheckID("ble.engagement")
    /// BlueZ (org.bluez) answers on the system bus.
    package static let bleNoBlueZ = CheckID("ble.noBlueZ")
    /// The Bluetooth adapter asked for exists.
    package static let bleNoAdapter = CheckID("ble.noAdapter")
    /// The Bluetooth adapter is powered.
    package static let bleAdapterOff = CheckID("ble.adapterOff")
    /// The holder connected, answered and finished within the connect, first-response and session timeouts.
    package static let bleTimeout = CheckID("ble.timeout")
    /// The holder stayed connected until the session ended.
    package static let bleDisconnected = CheckID("ble.disconnected")
    /// The operator did not cancel the capture.
    package static let bleCancelled = CheckID("ble.cancelled")
    /// Every chunk from the holder starts with 0x01 (more) or 0x00 (last), and no message is cut short.
    package static let bleFraming = CheckID("ble.framing")
    /// No message from the holder exceeds the reassembly limit.
    package static let bleMessageTooLarge = CheckID("ble.messageTooLarge")
    /// The holder accepted the reader's Ident characteristic (central client mode).
    package static let bleIdentRejected = CheckID("ble.identRejected")
    /// BlueZ carried out the GATT operations (connect, service discovery, writes, registrations).
    package static let bleGatt = CheckID("ble.gatt")
}

extension CheckCatalogue {
    static let bleFamily: [CheckDefinition] = [
        CheckDefinition(.bleCapture, clause: "18013-5 §8.3.3.1.1", "The live BLE exchange ran to its end: the request was sent and the holder's answer received in whole messages."),
        CheckDefinition(.bleEngagement, clause: "18013-5 §8.2.2.2, Table 10", "The engagement offers mdoc peripheral server or central client mode with its service UUID."),
        CheckDefinition(.bleNoBlueZ, clause: "mdocverify capture", "BlueZ (org.bluez) answers on the system bus."),
        CheckDefinition(.bleNoAdapter, clause: "mdocverify capture", "The Bluetooth adapter asked for (--adapter) exists."),
        CheckDefinition(.bleAdapterOff, clause: "mdocverify capture", "The Bluetooth adapter is powered."),
        CheckDefinition(.bleTimeout, clause: "mdocverify capture", "The holder connected, answered and finished within the connect, first-response and session timeouts."),
        CheckDefinition(.bleDisconnected, clause: "18013-5 §8.3.3.1.1.7", "The holder stayed connected until the session ended."),
        CheckDefinition(.bleCancelled, clause: "mdocverify capture", "The operator did not cancel the capture (Ctrl-C)."),
        CheckDefinition(.bleFraming, clause: "18013-5 §8.3.3.1.1.6", "Every chunk from the holder starts with 0x01 (more follow) or 0x00 (last), and no message is cut short by the end of the session."),
        CheckDefinition(.bleMessageTooLarge, clause: "mdocverify capture", "No message from the holder exceeds the reassembly limit (4 MiB)."),
        CheckDefinition(.bleIdentRejected, clause: "18013-5 §8.3.3.1.1.4", "The holder read the Ident characteristic (HKDF of EDeviceKeyBytes, \"BLEIdent\") and went on with the session."),
        CheckDefinition(.bleGatt, clause: "18013-5 §8.3.3.1.1.4", "BlueZ carried out the GATT operations: connection, service discovery, subscriptions, writes and registrations."),
    ]
}
