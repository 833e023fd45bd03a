import ArgumentParser
import Configuration

/// Options of the worker (`serve`); their names and help come from the ``Setting`` declarations.
struct WorkerOptions: ParsableArguments {
    @Option(name: Setting.workerConcurrency.flagName, help: Setting.workerConcurrency.flagHelp)
    var concurrency: Int?

    @Option(name: Setting.workerBatchSize.flagName, help: Setting.workerBatchSize.flagHelp)
    var batchSize: Int?

    @Option(
        name: Setting.workerTransactionBatchSize.flagName, help: Setting.workerTransactionBatchSize.flagHelp
    )
    var transactionBatchSize: Int?

    @Option(name: Setting.workerTransactionWindow.flagName, help: Setting.workerTransactionWindow.flagHelp)
    var transactionWindowMs: Int?

    @Option(
        name: Setting.workerSynchronousCompletion.flagName,
        help: Setting.workerSynchronousCompletion.flagHelp
    )
    var synchronousCompletion: Bool?

    @Option(name: Setting.workerClaimInterval.flagName, help: Setting.workerClaimInterval.flagHelp)
    var claimIntervalMs: Int?

    @Option(name: Setting.workerPollInterval.flagName, help: Setting.workerPollInterval.flagHelp)
    var pollIntervalMs: Int?

    @Option(name: Setting.workerLease.flagName, help: Setting.workerLease.flagHelp)
    var leaseSeconds: Int?

    @Option(name: Setting.workerShutdownGrace.flagName, help: Setting.workerShutdownGrace.flagHelp)
    var shutdownGraceSeconds: Int?

    @Option(name: Setting.workerRetention.flagName, help: Setting.workerRetention.flagHelp)
    var retentionHours: Int?

    @Option(name: Setting.workerDeadRetention.flagName, help: Setting.workerDeadRetention.flagHelp)
    var deadRetentionHours: Int?

    @Option(name: Setting.workerListen.flagName, help: Setting.workerListen.flagHelp)
    var listen: Bool?

    @Option(name: Setting.workerChannel.flagName, help: Setting.workerChannel.flagHelp)
    var channel: String?

    @Option(name: Setting.workerID.flagName, help: Setting.workerID.flagHelp)
    var workerID: String?

    /// The settings given as flags.
    var flagValues: [Setting: ConfigContent] {
        var values: [Setting: ConfigContent] = [:]
        let integers: [(Setting, Int?)] = [
            (.workerConcurrency, self.concurrency), (.workerBatchSize, self.batchSize),
            (.workerTransactionBatchSize, self.transactionBatchSize),
            (.workerTransactionWindow, self.transactionWindowMs), (.workerClaimInterval, self.claimIntervalMs),
            (.workerPollInterval, self.pollIntervalMs), (.workerLease, self.leaseSeconds),
            (.workerShutdownGrace, self.shutdownGraceSeconds), (.workerRetention, self.retentionHours),
            (.workerDeadRetention, self.deadRetentionHours),
        ]
        for (setting, value) in integers { values[setting] = value.map(ConfigContent.int) }
        values[.workerSynchronousCompletion] = self.synchronousCompletion.map(ConfigContent.bool)
        values[.workerListen] = self.listen.map(ConfigContent.bool)
        values[.workerChannel] = self.channel.map(ConfigContent.string)
        values[.workerID] = self.workerID.map(ConfigContent.string)
        return values
    }
}
