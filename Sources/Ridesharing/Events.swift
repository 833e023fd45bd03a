import ArgumentParser
import Foundation
import Logging
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

        @Flag(help: "Only dead-lettered deliveries.")
        var dead = false

        @Flag(help: "Also list done deliveries still within the retention period.")
        var done = false

        @Option(help: "Only this function's deliveries.")
        var function: String?

        @Option(help: "At most this many (1...10000).")
        var limit = 50

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global)
            let function = self.function.map { FunctionName($0) }
            let (dead, done, limit) = (self.dead, self.done, self.limit)
            let records = try await configuration.withClient(logger: logger) { client in
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

        @Argument(help: "The delivery's id.")
        var id: Int64

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global)
            let id = self.id
            let record = try await configuration.withClient(logger: logger) { client in
                try await DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger).show(id)
            }
            print(EventsFormat.detail(record))
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replay a dead delivery, or every dead one.")

        @OptionGroup var global: GlobalOptions

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
            let (configuration, logger) = try await Events.setUp(self.global)
            let (id, function) = (self.id, self.function.map { FunctionName($0) })
            let message = try await configuration.withClient(logger: logger) { client in
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

        @Option(help: "Only this function's timers.")
        var function: String?

        @Option(help: "At most this many (1...10000).")
        var limit = 50

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global)
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

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global)
            let schedules = try await configuration.withClient(logger: logger) { client in
                try await DeliveryAdmin(client: client, channel: configuration.runtime.channel, logger: logger)
                    .schedules()
            }
            print(EventsFormat.scheduleHeader)
            for schedule in schedules { print(EventsFormat.line(schedule)) }
        }
    }

    static func setUp(_ global: GlobalOptions) async throws -> (Configuration, Logger) {
        let configuration = try Configuration(try await global.settings(), embeddedPostgres: global.embeddedPostgres)
        Bootstrap.logging(configuration)
        return (configuration, configuration.logger())
    }
}
