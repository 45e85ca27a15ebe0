import Foundation

/// The record tables of docs/json-lines.md, read from the document itself, so that real output
/// is checked against what the document says (and the document cannot drift from the output).
struct JSONLinesContract {
    struct Field {
        var name: String
        /// Alternatives: `string`, `integer`, `boolean`, `object`, `null`, `"literal"`, `array of X`.
        var types: [String]
        var optional: Bool
    }

    /// Table name (`transaction`, `check`, ...) → its fields.
    var tables: [String: [Field]] = [:]

    init(markdown: String) {
        var current: String?
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") {
                let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
                current = title.contains(" ") ? nil : title
                continue
            }
            guard let table = current, line.hasPrefix("| `") else { continue }
            // Cells split on unescaped pipes; `\|` inside a cell separates alternatives.
            let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|")
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{1}", with: "|") }
            guard cells.count >= 3 else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let types = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")).split(separator: "|").map(String.init)
            tables[table, default: []].append(Field(name: name, types: types, optional: cells[2] == "optional"))
        }
    }

    /// What is wrong with `object` as a record of `table` (empty when it conforms).
    func violations(of object: [String: JSON], as table: String, at path: String = "") -> [String] {
        guard let fields = tables[table] else { return ["\(path): no table \(table) in the document"] }
        var problems: [String] = []
        let documented = Set(fields.map(\.name))
        for key in object.keys where !documented.contains(key) { problems.append("\(path).\(key): not in the document") }
        for field in fields {
            guard let value = object[field.name] else {
                if !field.optional { problems.append("\(path).\(field.name): missing") }
                continue
            }
            if !field.types.contains(where: { matches(value, $0, at: "\(path).\(field.name)", problems: &problems) }) {
                problems.append("\(path).\(field.name): \(value) is not \(field.types.joined(separator: "|"))")
            }
        }
        return problems
    }

    private func matches(_ value: JSON, _ type: String, at path: String, problems: inout [String]) -> Bool {
        if type.hasPrefix("\"") { return value == .string(type.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
        if type.hasPrefix("array of ") {
            guard case .array(let items) = value else { return false }
            let itemTable = String(type.dropFirst("array of ".count))
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item else { return false }
                problems += violations(of: object, as: itemTable, at: "\(path)[\(index)]")
            }
            return true
        }
        switch (type, value) {
        case ("string", .string), ("null", .null), ("object", .object), ("boolean", .bool), ("integer", .integer), ("array", .array): return true
        default: return false
        }
    }
}

/// A JSON value as written, telling integers from other numbers and booleans from numbers.
enum JSON: Decodable, Equatable {
    case string(String), integer(Int64), number(Double), bool(Bool), null, array([JSON]), object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSON].self)) }
    }

    static func parse(_ line: some StringProtocol) throws -> JSON { try JSONDecoder().decode(JSON.self, from: Data(line.utf8)) }

    subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
