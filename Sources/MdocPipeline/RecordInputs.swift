package import MdocIngest
package import MdocStore

/// Inputs a run reads through a module above the pipeline: the records a central intake
/// received (a store, `<intake.sqlite>`, or one of its records, `<intake.sqlite>!/<hash>`),
/// opened with the centre's sealing key. The pipeline reads every other input itself.
package protocol RecordInputs: Sendable {
    /// Whether `input` is a store of records or names one record of one.
    func handles(_ input: String) -> Bool
    /// Opens the store `input` names and checks that it is one, without listing its records
    /// (the run's pre-flight); nothing to check for an input that names one record.
    func check(_ input: String) throws
    /// The items a store stands for, one per record in the store's order; `nil` for an input
    /// that names one record. Throws when the store cannot be read as one.
    func expand(_ input: String) throws -> [String]?
    /// The transaction of the record `input` names, or why it gives none.
    func read(_ input: String) -> RecordInput
}

/// One record read as a transaction, or the stable code and reason it could not be.
package enum RecordInput: Sendable {
    /// The record's transaction and the kiosk's side of the record (recorded beside the run's
    /// verification of the transaction, for the report's kiosk section).
    case transaction(TransactionBundle, kiosk: KioskSide)
    case failure(code: String, reason: String)
}
