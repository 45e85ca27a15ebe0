/// A kiosk-side setup or outbox problem, with a message that says what to do.
public struct KioskError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
