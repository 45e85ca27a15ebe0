import Foundation
import MdocCBOR
import MdocImaging
import MdocTime

/// A fictitious mDL holder and the data elements of their licence in the `org.iso.18013.5.1`
/// namespace (ISO 18013-5 §7.2.1, Table 5), drawn from the sample seed.
///
/// Names come in several scripts (Latin with diacritics, Arabic, Cyrillic, Greek, CJK, Hangul,
/// Devanagari), because a verifier must carry UTF-8 text through untouched. Every person,
/// number and portrait is invented.
struct SampleHolder {
    static let namespace = "org.iso.18013.5.1"
    static let issuingCountry = "UT"
    static let issuingAuthority = "Utopia Motor Vehicles"
    static let distinguishingSign = "UTO"

    /// (family_name, given_name), several per script.
    static let names: [(family: String, given: String)] = [
        ("Müller", "Anna"), ("García Márquez", "Lucía"), ("Nowak", "Zofia"), ("O'Connor", "Seán"),
        ("Nguyễn", "Thị Mai"), ("Okafor", "Chinedu"), ("Jensen", "Søren"), ("Dubois", "Élodie"),
        ("الهاشمي", "ليلى"), ("العتيبي", "محمد"), ("Иванова", "Мария"), ("Шевченко", "Олександр"),
        ("Παπαδοπούλου", "Ελένη"), ("山田", "花子"), ("王", "小明"), ("김", "민준"), ("शर्मा", "प्रिया"),
    ]

    let family: String
    let given: String
    let birth: Date
    let issue: Date
    let expiry: Date
    let documentNumber: String
    let sex: UInt64
    let ageAtCapture: Int
    let privileges: [CBORNode]
    let portrait: [UInt8]

    static let day: TimeInterval = 86_400

    init(random rng: inout SampleRandom, capturedAt: Date) throws(SampleError) {
        let name = rng.pick(Self.names) ?? ("Doe", "Jane")
        family = name.family
        given = name.given
        // Age 17...88 at capture, so that age_over_18/21/65 take both values across a batch.
        let ageDays = rng.int(in: (17 * 365 + 5)...(88 * 365))
        birth = Self.midnight(capturedAt.addingTimeInterval(-Double(ageDays) * Self.day))
        ageAtCapture = CivilDate.wholeYears(from: birth, to: capturedAt) ?? 0
        issue = Self.midnight(capturedAt.addingTimeInterval(-Double(rng.int(in: 20...1800)) * Self.day))
        expiry = Self.midnight(issue.addingTimeInterval(Double(10 * 365 + 2) * Self.day))
        let letters = Array("ABCDEFGHJKLMNPRSTUVWXYZ")
        let letter = rng.pick(letters) ?? "D"
        documentNumber = String(letter) + (0..<8).map { _ in String(rng.below(10)) }.joined()
        sex = rng.chance(0.5) ? 1 : 2

        // Category B always; A and C1 sometimes, with restriction codes (ISO/IEC 18013-1 Annex A).
        var privileges: [CBORNode] = [Self.privilege("B", issue: issue, expiry: expiry, codes: [])]
        if rng.chance(0.35) {
            let issued = Self.midnight(issue.addingTimeInterval(-Double(rng.int(in: 100...3000)) * Self.day))
            privileges.append(Self.privilege("A", issue: issued, expiry: expiry, codes: [("78", nil, nil)]))
        }
        if rng.chance(0.15) {
            privileges.append(Self.privilege("C1", issue: issue, expiry: expiry, codes: [("01", "=", "02")]))
        }
        self.privileges = privileges
        portrait = try Self.portrait(random: &rng)
    }

    /// Disclosed elements (12), then the undisclosed ones (their digests are in the MSO).
    func elements() -> (disclosed: [SampleElement], undisclosed: [SampleElement]) {
        let ns = Self.namespace
        let disclosed = [
            SampleElement(ns, "family_name", .text(family)),
            SampleElement(ns, "given_name", .text(given)),
            SampleElement(ns, "birth_date", MdocIssuer.fullDate(birth)),
            SampleElement(ns, "issue_date", MdocIssuer.fullDate(issue)),
            SampleElement(ns, "expiry_date", MdocIssuer.fullDate(expiry)),
            SampleElement(ns, "issuing_country", .text(Self.issuingCountry)),
            SampleElement(ns, "issuing_authority", .text(Self.issuingAuthority)),
            SampleElement(ns, "document_number", .text(documentNumber)),
            SampleElement(ns, "portrait", .bytes(portrait)),
            SampleElement(ns, "driving_privileges", .array(privileges)),
            SampleElement(ns, "age_over_18", .bool(ageAtCapture >= 18)),
            SampleElement(ns, "age_over_21", .bool(ageAtCapture >= 21)),
        ]
        let undisclosed = [
            SampleElement(ns, "age_over_65", .bool(ageAtCapture >= 65)),
            SampleElement(ns, "un_distinguishing_sign", .text(Self.distinguishingSign)),
            SampleElement(ns, "sex", .unsigned(sex)),
            SampleElement(ns, "issuing_jurisdiction", .text("UT-01")),
        ]
        return (disclosed, undisclosed)
    }

    /// `driving_privileges` entry (§7.2.4): `{vehicle_category_code, ? issue_date, ? expiry_date, ? codes}`.
    static func privilege(
        _ category: String, issue: Date, expiry: Date, codes: [(code: String, sign: String?, value: String?)]
    ) -> CBORNode {
        var entries: [CBORNode.Entry] = [
            .init("vehicle_category_code", .text(category)),
            .init("issue_date", MdocIssuer.fullDate(issue)),
            .init("expiry_date", MdocIssuer.fullDate(expiry)),
        ]
        if !codes.isEmpty {
            entries.append(.init("codes", .array(codes.map { code in
                var fields: [CBORNode.Entry] = [.init("code", .text(code.code))]
                if let sign = code.sign { fields.append(.init("sign", .text(sign))) }
                if let value = code.value { fields.append(.init("value", .text(value))) }
                return .map(fields)
            })))
        }
        return .map(entries)
    }

    static func midnight(_ date: Date) -> Date {
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / day).rounded(.down) * day)
    }


    // MARK: Portrait

    static let portraitWidth = 96
    static let portraitHeight = 120

    /// A small JPEG "passport photo": a vertical background gradient, shoulders, a face oval with
    /// hair, eyes and a mouth, in colours drawn from the seed (about 3 KB at quality 80).
    static func portrait(random rng: inout SampleRandom) throws(SampleError) -> [UInt8] {
        let width = portraitWidth, height = portraitHeight
        let skins: [(Double, Double, Double)] = [
            (241, 194, 167), (224, 172, 135), (198, 134, 94), (161, 102, 66), (112, 72, 48), (236, 200, 180),
        ]
        let skin = rng.pick(skins) ?? (224, 172, 135)
        let hairTone = Double(rng.int(in: 20...150))
        let hair = (hairTone, hairTone * 0.75, hairTone * 0.5)
        let shirt = (Double(rng.int(in: 30...200)), Double(rng.int(in: 30...200)), Double(rng.int(in: 30...200)))
        let top = (Double(rng.int(in: 170...230)), Double(rng.int(in: 190...235)), 240.0)
        let faceX = Double(width) / 2 + Double(rng.int(in: -3...3))
        let faceY = Double(height) * 0.42
        let rx = Double(rng.int(in: 21...25)), ry = Double(rng.int(in: 28...32))

        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let fy = Double(y)
            let shade = 1 - 0.25 * fy / Double(height)
            for x in 0..<width {
                let fx = Double(x)
                var colour = (top.0 * shade, top.1 * shade, top.2 * shade)
                // Shoulders: a wide ellipse rising from the bottom edge.
                let sx = (fx - faceX) / 46, sy = (fy - Double(height) * 1.05) / 34
                if sx * sx + sy * sy <= 1 { colour = shirt }
                // Neck.
                if abs(fx - faceX) < rx * 0.45, fy > faceY, fy < faceY + ry + 12 { colour = (skin.0 * 0.9, skin.1 * 0.9, skin.2 * 0.9) }
                // Hair: a larger oval behind the face, cut below the ears.
                let hx = (fx - faceX) / (rx + 5), hy = (fy - (faceY - 6)) / (ry + 4)
                if hx * hx + hy * hy <= 1, fy < faceY + 4 { colour = hair }
                // Face, lit from the left.
                let dx = (fx - faceX) / rx, dy = (fy - faceY) / ry
                let r2 = dx * dx + dy * dy
                if r2 <= 1, !(fy < faceY - ry * 0.55 && r2 > 0.55) {
                    let light = 1.05 - 0.15 * dx - 0.1 * r2
                    colour = (skin.0 * light, skin.1 * light, skin.2 * light)
                    // Eyes and mouth.
                    for ex in [-0.38, 0.38] {
                        let ex2 = (dx - ex) / 0.13, ey2 = (dy + 0.12) / 0.07
                        if ex2 * ex2 + ey2 * ey2 <= 1 { colour = (40, 30, 30) }
                    }
                    if abs(dy - 0.5) < 0.045, abs(dx) < 0.3 { colour = (150, 70, 70) }
                    if abs(dx) < 0.06, dy > 0, dy < 0.3 { colour = (colour.0 * 0.9, colour.1 * 0.9, colour.2 * 0.9) }
                }
                let index = (y * width + x) * 3
                pixels[index] = clamp(colour.0)
                pixels[index + 1] = clamp(colour.1)
                pixels[index + 2] = clamp(colour.2)
            }
        }
        do {
            let image = try RGBImage(width: width, height: height, pixels: pixels)
            return try JPEGEncoder.encode(rgb: image, quality: 80)
        } catch {
            throw SampleError(.imageFailed, "portrait: \(error)")
        }
    }

    static func clamp(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
