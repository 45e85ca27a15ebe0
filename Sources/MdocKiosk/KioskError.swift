/// A kiosk-side setup or outbox problem, with a message that says what to do.
package struct KioskError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}
