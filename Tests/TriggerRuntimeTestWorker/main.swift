// A worker process for the integration tests that need a real process (SIGKILL mid-handler, SIGTERM under load).
// Not a product: tests start it from the build directory.
//
// Environment: DATABASE_URL; WORKER_CONCURRENCY, WORKER_LEASE_SECONDS, WORKER_SHUTDOWN_GRACE_SECONDS;
// HANDLER_MS (each handler's duration); HANG_ON (an item id, or a `ring` timer's payload, whose handler never
// returns). Prints `started ID` and `finished ID` lines on standard output (`started timer N` for timers).
import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import TriggerRuntime
import UnixSignals

struct Item: Decodable, Sendable {
    var id: Int
}

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let environment = ProcessInfo.processInfo.environment
guard let url = environment["DATABASE_URL"] else {
    FileHandle.standardError.write(Data("DATABASE_URL is required\n".utf8))
    exit(2)
}
let handlerTime = Duration.milliseconds(Int(environment["HANDLER_MS"] ?? "") ?? 0)
let hangOn = environment["HANG_ON"].flatMap { Int($0) }

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}
let logger = Logger(label: "test-worker")

var configuration = TriggerRuntime.Configuration()
configuration.concurrency = Int(environment["WORKER_CONCURRENCY"] ?? "") ?? 4
configuration.leaseDuration = .seconds(Int(environment["WORKER_LEASE_SECONDS"] ?? "") ?? 30)
configuration.leaseRenewalInterval = configuration.leaseDuration / 3
configuration.shutdownGracePeriod = .seconds(Int(environment["WORKER_SHUTDOWN_GRACE_SECONDS"] ?? "") ?? 30)
configuration.workerID = "test-worker-\(getpid())"

var registry = FunctionRegistry()
registry.register("work", on: .create("items"), as: Item.self) { change, context in
    guard let id = change.after?.id, let transaction = context.transaction else { return }
    emit("started \(id)")
    if id == hangOn {
        try await Task.sleep(for: .seconds(3600))
    } else if handlerTime > .zero {
        try await Task.sleep(for: handlerTime)
    }
    try await transaction.query("INSERT INTO work_log (item_id, pid) VALUES (\(id), \(Int(getpid())))", logger: context.logger)
    emit("finished \(id)")
}

registry.registerTimer("ring", as: Int.self) { timer, context in
    guard let transaction = context.transaction else { return }
    emit("started timer \(timer.payload)")
    if timer.payload == hangOn { try await Task.sleep(for: .seconds(3600)) }
    try await transaction.query(
        "INSERT INTO work_log (item_id, pid) VALUES (\(timer.payload), \(Int(getpid())))", logger: context.logger)
    emit("finished timer \(timer.payload)")
}

let client = PostgresClient(configuration: try DatabaseURL.clientConfiguration(url), backgroundLogger: logger)
let runtime = TriggerRuntime(client: client, registry: registry, configuration: configuration, logger: logger)
let group = ServiceGroup(
    services: [client, runtime],
    gracefulShutdownSignals: [.sigterm],
    cancellationSignals: [.sigint],
    logger: logger
)
emit("ready")
try await group.run()
emit("exited")
