import ArgumentParser
import Foundation
import LocalStack
import Logging
import PostgresNIO
import TriggerRuntime

/// `ridesharing events list|show|retry`.
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect and replay deliveries; list pending timers and schedules.",
        subcommands: [List.self, Show.self, Retry.self, Timers.self, Schedules.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List pending and dead deliveries, newest first.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        @Flag(help: "Only dead-lettered deliveries.")
        var dead = false

        @Flag(help: "Also list done deliveries still within the retention period.")
        var done = false

        @Option(help: "Only this function's deliveries.")
        var function: String?

        @Option(help: "At most this many (1...10000).")
        var limit = 50

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let function = self.function.map { FunctionName($0) }
            let (dead, done, limit) = (self.dead, self.done, self.limit)
            let records = try await Events.withClient(configuration, logger: logger) { client in
                try await DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger)
                    .list(dead: dead, function: function, includeDone: done, limit: limit)
            }
            print(EventsFormat.header)
            for record in records { print(EventsFormat.line(record)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one delivery with its rows and last error.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        @Argument(help: "The delivery's id.")
        var id: Int64

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let id = self.id
            let record = try await Events.withClient(configuration, logger: logger) { client in
                try await DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger).show(id)
            }
            print(EventsFormat.detail(record))
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replay a dead delivery, or every dead one.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        @Argument(help: "The dead delivery's id.")
        var id: Int64?

        @Flag(help: "Replay every dead delivery (of --function, if given).")
        var allDead = false

        @Option(help: "With --all-dead: only this function's.")
        var function: String?

        func validate() throws {
            guard (self.id != nil) != self.allDead else {
                throw ValidationError("give either a delivery id or --all-dead")
            }
            if self.function != nil && !self.allDead { throw ValidationError("--function goes with --all-dead") }
        }

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let (id, function) = (self.id, self.function.map { FunctionName($0) })
            let message = try await Events.withClient(configuration, logger: logger) { client in
                let admin = DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger)
                if let id {
                    try await admin.retry(id)
                    return "delivery \(id) is ready again"
                }
                return "\(try await admin.retryAllDead(function: function)) dead deliveries are ready again"
            }
            print(message)
        }
    }

    struct Timers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List pending timers, earliest due first, after a count of timers and schedules.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        @Option(help: "Only this function's timers.")
        var function: String?

        @Option(help: "At most this many (1...10000).")
        var limit = 50

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let (function, limit) = (self.function.map { FunctionName($0) }, self.limit)
            let (summary, timers) = try await configuration.withClient(logger: logger) { client in
                let admin = DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger)
                return (try await admin.timerSummary(), try await admin.timers(function: function, limit: limit))
            }
            print(EventsFormat.summary(summary))
            print(EventsFormat.timerHeader)
            for timer in timers { print(EventsFormat.line(timer)) }
        }
    }

    struct Schedules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the installed schedules and their next runs.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let schedules = try await configuration.withClient(logger: logger) { client in
                try await DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger)
                    .schedules()
            }
            print(EventsFormat.scheduleHeader)
            for schedule in schedules { print(EventsFormat.line(schedule)) }
        }
    }

    /// The configuration and logger of an `events` command. When no database is configured at all (no
    /// `--database-url`, `DATABASE_URL`, `POSTGRES_*` or settings file value: the defaults), the database of the
    /// running `ridesharing local` is used, found through `<local-data>/stack.json` as `functions call` finds it:
    /// the embedded PostgreSQL's port changes on every start, so a URL saved earlier goes stale.
    static func setUp(_ global: GlobalOptions, _ local: LocalStackOption) async throws -> (Configuration, Logger) {
        var configuration = try Configuration(try await global.settings(), embeddedPostgres: global.embeddedPostgres)
        Bootstrap.logging(configuration)
        if configuration.database.isUnconfigured, let url = local.runningDatabaseURL() {
            configuration.database = .url(url)
            configuration.databaseSource = "the running local stack (\(LocalData.endpointsFile(local.localData)))"
        }
        return (configuration, configuration.logger())
    }

    /// Runs `body` with a client once the database answers, or fails within ``connectTimeout`` with a message that
    /// says which database was tried and how to point at another: PostgresClient itself retries a refused
    /// connection forever (logging each attempt), which for a one-shot command looks like a hang.
    ///
    /// Neither the first query nor the client's shutdown after it is waited for past the deadline: the probe is
    /// abandoned (``abandoning(after:timedOut:_:)``), and so is the client's whole scope. A task group cannot do
    /// this: it waits for its children, and a postgres-nio wait that does not answer cancellation then holds the
    /// command. That happened once in CI (`events list` against a port nothing answered did not exit within
    /// 120 s while the whole suite ran; it exits in 5 s when run alone, which is all that could be reproduced).
    static func withClient<T: Sendable>(
        _ configuration: Configuration,
        logger: Logger,
        _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let unanswered = Configuration.Invalid(
            description: """
                no database answers at \(configuration.database.redacted) (\(configuration.databaseSource)) \
                within \(Self.connectTimeout): start `swift run ridesharing local` (its stack.json is \
                found in .local, or --local-data), or give --database-url / DATABASE_URL
                """
        )
        // Finished when the scope ends; yields once if the database did not answer in time.
        let (timedOut, report) = AsyncStream<Void>.makeStream()
        let work = Task {
            defer { report.finish() }
            return try await configuration.withClient(logger: logger) { client in
                do {
                    try await abandoning(after: Self.connectTimeout, timedOut: { unanswered }) {
                        for try await _ in try await client.query("SELECT 1", logger: logger) {}
                    }
                } catch let error as Configuration.Invalid {
                    report.yield()
                    throw error
                }
                return try await body(client)
            }
        }
        return try await withTaskCancellationHandler {
            for await _ in timedOut {
                work.cancel()
                throw unanswered
            }
            return try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// How long an `events` command waits for the database's first answer.
    static let connectTimeout: Duration = .seconds(5)
}

/// `--local-data`: where `ridesharing local` keeps `stack.json`.
struct LocalStackOption: ParsableArguments {
    @Option(
        name: .customLong("local-data"),
        help: "The local stack's data folder, whose stack.json names its database when none is configured."
    )
    var localData = ".local"

    /// The running stack's database URL, if `stack.json` is there and names one.
    func runningDatabaseURL() -> String? {
        let path = LocalData.endpointsFile(self.localData)
        guard let data = FileManager.default.contents(atPath: path),
            let endpoints = try? JSONDecoder().decode(LocalStack.Endpoints.self, from: data)
        else { return nil }
        return endpoints.databaseURL
    }
}
