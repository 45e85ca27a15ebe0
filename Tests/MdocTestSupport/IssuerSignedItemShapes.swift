/// IssuerSignedItemBytes of many shapes for the model and decoder tests: usually the four keys
/// in some order, sometimes a key missing, repeated or unknown, values of every kind, sometimes a
/// damaged byte or a cut.
package enum IssuerSignedItemShapes {
    /// The four keys of an IssuerSignedItem, in the CDDL's order.
    package static let names = ["digestID", "random", "elementIdentifier", "elementValue"]

    /// `#6.<tag>(bstr .cbor { keys[i] => values[i] })` (`tagHex`: the tag's encoded head), the
    /// map and the byte string with definite lengths.
    package static func item(keys: [String], values: [[UInt8]], tagHex: String = "d818") -> [UInt8] {
        var map: [UInt8] = keys.count < 24 ? [0xa0 | UInt8(keys.count)] : [0xb8, UInt8(keys.count)]
        for (key, value) in zip(keys, values) {
            map += [0x60 | UInt8(key.utf8.count)] + Array(key.utf8) + value
        }
        var out = Hex.decode(tagHex) ?? []
        if map.count < 24 { out.append(0x40 | UInt8(map.count)) } else if map.count < 256 { out += [0x58, UInt8(map.count)] } else {
            out += [0x59, UInt8(map.count >> 8), UInt8(map.count & 0xff)]
        }
        return out + map
    }

    /// One item for round `round`: values drawn from `valuePool` (hex), a usual digestID two
    /// times in three; with `usualFields`, also a usual `random` and `elementIdentifier` two times
    /// in three and tag 25 instead of 24 one time in twenty.
    package static func random(
        _ random: inout SplitMix64, round: Int, valuePool: [String], usualFields: Bool = false
    ) -> [UInt8] {
        var keys = names
        keys.shuffle(using: &random)
        switch random.next() % 10 {
        case 0: keys[Int(random.next() % 4)] = keys[Int(random.next() % 4)]
        case 1: keys.removeLast()
        case 2: keys.append("extra")
        default: break
        }
        var values = keys.map { _ in Hex.decode(valuePool[Int(random.next() % UInt64(valuePool.count))]) ?? [] }
        if let i = keys.firstIndex(of: "digestID"), random.next() % 3 != 0 { values[i] = [0x18, UInt8(round % 256)] }
        var tagHex = "d818"
        if usualFields {
            if let i = keys.firstIndex(of: "random"), random.next() % 3 != 0 {
                values[i] = Hex.decode("5001020304050607080910111213141516") ?? []
            }
            if let i = keys.firstIndex(of: "elementIdentifier"), random.next() % 3 != 0 {
                values[i] = Hex.decode("6b66616d696c795f6e616d65") ?? []
            }
            tagHex = random.next() % 20 == 0 ? "d819" : "d818"
        }
        var input = item(keys: keys, values: values, tagHex: tagHex)
        switch random.next() % 8 {
        case 0 where input.count > 4: input[4 + Int(random.next() % UInt64(input.count - 4))] ^= UInt8(1 << (random.next() % 8))
        case 1 where input.count > 4: input.removeLast(1 + Int(random.next() % 3))
        default: break
        }
        return input
    }
}
