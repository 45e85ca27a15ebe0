import ArgumentParser
import MdocIntake
import MdocPipeline

/// The options that let a run take a central intake's store (`<out>/intake.sqlite` of `serve`
/// or `intake`) among its inputs: its records are opened and verified again.
struct IntakeInputOptions: ParsableArguments {
    @Option(name: .customLong("sealing-key"), help: "With an intake store (intake.sqlite) among the inputs: the centre's sealing key (PKCS#8 PEM) that opens its records.")
    var sealingKey: String?

    @Option(name: .long, help: "With an intake store among the inputs: the folder of enrolled kiosk certificates its records are checked against.")
    var kiosks: String?

    func validate(inputs: [String]) throws {
        if (sealingKey == nil) != (kiosks == nil) { throw ValidationError("give both --sealing-key and --kiosks, or neither") }
        if sealingKey == nil, let store = inputs.first(where: IntakeRecordInputs.isStorePath) {
            throw ValidationError("\(store) is a SQLite file: to verify the records of a central intake's store, give --sealing-key and --kiosks")
        }
    }

    /// Sets the configuration's intake options and the reader of the records they open.
    func apply(to configuration: inout RunConfiguration) throws {
        configuration.intakeSealingKeyPath = sealingKey
        configuration.intakeKiosksDirectory = kiosks
        try Self.attachRecords(to: &configuration)
    }

    /// The reader of intake records, when the configuration names the centre's sealing key
    /// (a worker's configuration comes from its queued run's options).
    static func attachRecords(to configuration: inout RunConfiguration) throws {
        guard let key = configuration.intakeSealingKeyPath else { return }
        configuration.recordInputs = try IntakeRecordInputs(sealingKeyPath: key, kiosksDirectory: configuration.intakeKiosksDirectory ?? "")
    }
}
