import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

@Suite("ridesharing migrate and events", .timeLimit(.minutes(10)))
struct CommandLineTests {
    /// Runs `ridesharing` with `arguments` and returns its exit status and output (stdout then stderr).
    static func ridesharing(
        _ arguments: [String],
        environment: [String: String],
        unset: Set<String> = []
    ) async throws -> (Int32, String) {
        let executable = try WorkerProcess.locate().deletingLastPathComponent().appendingPathComponent("ridesharing")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !unset.contains($0.key) }
            .merging(environment) { $1 }
        // Output to files, not pipes: reading a pipe to its end waits for every process holding it open.
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        let outputPath = base.appendingPathExtension("out")
        let errorsPath = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsPath.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputPath)
            try? FileManager.default.removeItem(at: errorsPath)
        }
        let output = try FileHandle(forWritingTo: outputPath)
        let errors = try FileHandle(forWritingTo: errorsPath)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        let exit = ProcessExit(observing: process)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        func printed() -> String {
            String(decoding: (try? Data(contentsOf: outputPath)) ?? Data(), as: UTF8.self)
                + String(decoding: (try? Data(contentsOf: errorsPath)) ?? Data(), as: UTF8.self)
        }
        do {
            let status = try await exit.status("ridesharing \(arguments.joined(separator: " "))")
            return (status, printed())
        } catch let error as ProcessExit.TimedOut {
            // What it printed, and where it waits, so that a hang says something.
            let state = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8))?
                .split(separator: "\n").filter { $0.hasPrefix("State:") || $0.hasPrefix("Threads:") } ?? []
            throw ProcessExit.TimedOut(
                description: "\(error.description); \(state.joined(separator: ", ")); it printed:\n\(printed())"
            )
        }
    }

    @Test("migrate --dry-run reports, migrate applies, events list/show/retry/timers/schedules work and refuse bad input")
    func commands() async throws {
        let (logger, _) = Logger.capturing()
        try await TestDatabase.shared.withDatabase { client, _ in
            let rows = try await client.query("SELECT current_database()")
            var name = ""
            for try await value in rows.decode(String.self) { name = value }
            let environment = [
                "DATABASE_URL": try await TestDatabase.shared.connectionURL(database: name), "LOG_LEVEL": "warning",
            ]

            let (dryStatus, dryOutput) = try await Self.ridesharing(["migrate", "--dry-run"], environment: environment)
            #expect(dryStatus == 1)
            #expect(dryOutput.contains("trigger_runtime/0001_create_queue"))
            let (status, output) = try await Self.ridesharing(["migrate"], environment: environment)
            #expect(status == 0, "\(output)")
            #expect(try await Self.ridesharing(["migrate", "--dry-run"], environment: environment).0 == 0)

            // A dead delivery, as the runtime leaves one.
            try await client.query(
                """
                INSERT INTO trigger_runtime.deliveries
                    (function_name, table_name, operation, document_key, new_row, attempt, status, last_error)
                VALUES ('charge', 'public.orders', 'create', '7', '{"id": 7}', 8, 'dead', 'card declined')
                """
            )
            let (listStatus, list) = try await Self.ridesharing(["events", "list", "--dead"], environment: environment)
            #expect(listStatus == 0)
            #expect(list.contains("dead\t8\tcharge\tcreate\tpublic.orders\t7"))
            #expect(list.contains("card declined"))
            let (_, shown) = try await Self.ridesharing(["events", "show", "1"], environment: environment)
            #expect(shown.contains("after:      {\"id\": 7}"))

            let (missingStatus, missing) = try await Self.ridesharing(["events", "retry", "99"], environment: environment)
            #expect(missingStatus != 0)
            #expect(missing.contains("no delivery 99"))
            let (badStatus, _) = try await Self.ridesharing(["events", "retry"], environment: environment)
            #expect(badStatus != 0)
            let (retryStatus, retried) = try await Self.ridesharing(["events", "retry", "--all-dead"], environment: environment)
            #expect(retryStatus == 0)
            #expect(retried.contains("1 dead deliveries are ready again"))
            let record = try await DeliveryAdmin(client: client, logger: logger).show(1)
            #expect(record.status == .ready)
            #expect(record.attempt == 0)

            // Timers and schedules, as the runtime keeps them.
            try await client.query(
                """
                INSERT INTO trigger_runtime.timers (function_name, document_key, timer_key, due_at, payload)
                VALUES ('expireOffer', 'order-7', 'round-1', '2100-01-01T00:00:00Z', '{"driver": 3}'),
                       ('expireOffer', 'order-8', 'round-1', now() - interval '1 second', NULL)
                """
            )
            try await client.query(
                """
                INSERT INTO trigger_runtime.schedules (function_name, schedule, next_run_at)
                VALUES ('sweep', 'cron */5 * * * *', '2100-01-01T00:05:00Z')
                """
            )
            let (timersStatus, timers) = try await Self.ridesharing(["events", "timers"], environment: environment)
            #expect(timersStatus == 0, "\(timers)")
            // The backend's own four (pruneWebhookEvents, reconcileTrips, pruneAccounts, pruneOrderEvents) and this one.
            #expect(timers.contains("2 pending timers (1 due), 5 schedules"), "\(timers)")
            #expect(timers.contains("expireOffer\torder-7\tround-1\t2100-01-01T00:00:00.000Z"))
            #expect(timers.contains("{\"driver\": 3}"))
            let (schedulesStatus, schedules) = try await Self.ridesharing(["events", "schedules"], environment: environment)
            #expect(schedulesStatus == 0, "\(schedules)")
            #expect(schedules.contains("sweep\tcron */5 * * * *\t2100-01-01T00:05:00.000Z\tnever"))
            #expect(try await Self.ridesharing(["events", "timers", "--limit", "0"], environment: environment).0 != 0)

            let (levelStatus, level) = try await Self.ridesharing(
                ["events", "list"], environment: environment.merging(["LOG_LEVEL": "loud"]) { $1 }
            )
            #expect(levelStatus != 0)
            #expect(level.contains("LOG_LEVEL"))
        }
    }

    /// The variables that configure a database: unset, `events` falls back to the running local stack's.
    static let databaseVariables: Set<String> = [
        "DATABASE_URL", "POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB",
        "CONFIG_FILE",
    ]

    @Test("events list without a database finds the running local stack through stack.json")
    func eventsFindTheLocalStack() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        try await TestDatabase.shared.withDatabase { client, configuration in
            let url = try await TestDatabase.shared.connectionURL(database: configuration.database ?? "postgres")
            let (migrated, output) = try await Self.ridesharing(["migrate"], environment: ["DATABASE_URL": url])
            #expect(migrated == 0, "\(output)")
            try await client.query(
                """
                INSERT INTO trigger_runtime.deliveries (function_name, table_name, operation, document_key, status)
                VALUES ('fromTheStack', 'public.orders', 'create', '9', 'dead')
                """
            )
            // What `ridesharing local` writes while it runs.
            let endpoints: [String: String] = [
                "apiURL": "http://127.0.0.1:1", "webhookURL": "http://127.0.0.1:1/v1/hypertrack/webhooks",
                "emulatorURL": "http://127.0.0.1:2", "accountID": "a", "secretKey": "s", "webhookSecret": "w",
                "databaseURL": url,
            ]
            try JSONEncoder().encode(endpoints).write(to: data.appendingPathComponent("stack.json"))
            let (status, list) = try await Self.ridesharing(
                ["events", "list", "--local-data", data.path],
                environment: ["LOG_LEVEL": "warning"],
                unset: Self.databaseVariables
            )
            #expect(status == 0, "\(list)")
            #expect(list.contains("fromTheStack"))
        }
    }

    @Test("events list fails fast, naming the database, when none answers")
    func eventsFailFast() async throws {
        // A port nothing listens on: bound, then closed.
        let socket = try EmbeddedPostgres.freeLoopbackPort()
        let started = ContinuousClock.now
        let (status, output) = try await Self.ridesharing(
            ["events", "list", "--local-data", "/nonexistent-\(UUID().uuidString)"],
            environment: ["POSTGRES_PORT": "\(socket)", "LOG_LEVEL": "warning"],
            unset: Self.databaseVariables
        )
        #expect(status != 0)
        #expect(output.contains("no database answers at postgres://postgres@127.0.0.1:\(socket)/postgres"), "\(output)")
        #expect(output.contains("ridesharing local"))
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
