import EmbeddedPostgres
import Foundation
@testable import LocalStack
import Logging
import PostgresNIO
import Testing

/// `ridesharing simulate` in small: a real local stack (PostgreSQL, API, worker, emulator on a manual clock) and a
/// city of 12 drivers and 10 rides run to the end with every invariant 0.
@Suite("Simulation: a small city runs to completion with its invariants 0", .timeLimit(.minutes(10)))
struct SimulationTests {
    @Test("12 drivers, 10 rides: every ride ends, nothing lost, one trip per leg, none left active; riders follow")
    func smallCity() async throws {
        try await TestDatabase.shared.withDatabase(logger: LocalStackTests.logger) { client, database in
            try await LocalStackTests.withStack(
                database: database,
                configuration: LocalStackTests.configuration(),
                logger: LocalStackTests.logger
            ) { running in
                var city = CitySimulation.Configuration(
                    apiURL: running.endpoints.apiURL,
                    emulatorURL: running.endpoints.emulatorURL
                )
                // Fewer rides than drivers, so no ride waits for a free driver: 20 drivers and 30 rides left one
                // ride unfinished at the deadline under CI's full parallel suite (setup alone took 28 s there).
                city.drivers = 12
                city.rides = 10
                city.rate = 5
                city.seed = 7
                city.radiusMeters = 1500
                city.clockStep = 30
                city.clockInterval = .milliseconds(100)
                city.thinkSeconds = 0.05...0.3
                city.riderStreams = true
                // The stack runs in this process: its memory and CPU are this process's.
                city.processes = [MeasuredProcess(name: "stack", pid: getpid())]
                city.sampleInterval = .milliseconds(250)
                city.progressInterval = .seconds(10)
                // The deadlines bound the simulation to 150 s (alone it takes about 20 s; under the whole parallel
                // suite on 2 cores the sign-ins alone took 28 s). The suite's limit is the backstop for the stack.
                city.setupDeadline = .seconds(40)
                city.deadline = .seconds(100)
                city.settleDeadline = .seconds(10)
                let report = try await Self.run(city, database: database)
                for line in report.lines { print(line) }
                // Values, not members of `report`: a failed expectation would print the whole report (routes' samples).
                let (reachedEnd, booked, completed) = (report.reachedEnd, report.booked, report.completed)
                let (trips, locationEvents) = (report.trips, report.locationEvents)
                #expect(reachedEnd, "every ride completed or cancelled before the deadline")
                #expect(booked == 10)
                #expect(completed > 0, "drivers completed rides")
                // The trip invariants looked at real trips: a pickup and a drop-off trip per completed ride.
                // Counted in the database: the run ends once every order is final, which may cancel a driver's task
                // between its completing request and its own count (seen once under CI's load: 9 counted, 10 done).
                let completedRows = try await client.query(
                    "SELECT count(*)::int8 FROM orders WHERE status = 'COMPLETED'", logger: LocalStackTests.logger
                )
                var completedInDatabase: Int64 = 0
                for try await count in completedRows.decode(Int64.self) { completedInDatabase = count }
                #expect(trips == 2 * Int(completedInDatabase))
                #expect(locationEvents > 0, "the phones reported through the webhook endpoint")
                // Pushed offers: every booked order was seen by a driver on its stream, and what the report adds was
                // measured from its sources (the emulator's timings, the database's events, /proc).
                let counts = report.measuredCounts
                #expect(counts.offersSeen == 10, "each booking's offer.new reached a driver's stream")
                // Each offer's time split at the order's row and the offer's event, in order: no step negative.
                let steps = report.offerSteps
                #expect(counts.offerSteps == 10)
                #expect(
                    [steps.toOrder, steps.toOffer, steps.toSeen].allSatisfy { $0.count == 10 && $0.p50 >= 0 },
                    "\(report.offerStepsLine)"
                )
                // Its last step split at the offer's commit and its event's sequencing (the test server tracks commit
                // timestamps), each step in order.
                let hop = report.offerLastHop
                #expect(
                    hop.map { [$0.toCommit, $0.toSequenced, $0.toSeen].allSatisfy { $0.count == 10 && $0.p50 >= 0 } }
                        == true,
                    "\(report.offerStepsLine)"
                )
                #expect(counts.acceptsToPickingUp > 0)
                #expect(counts.webhookAcknowledgements > 0, "the emulator timed its deliveries")
                #expect(
                    counts.webhookWireAcknowledgements == counts.webhookAcknowledgements,
                    "each timed on the wire too"
                )
                #expect(counts.arrivalsToReached == 2 * Int(completedInDatabase), "one per leg of each completed ride")
                #expect(counts.functionsWithLag.contains("updateOrderStatus"), "\(counts.functionsWithLag)")
                // The API's booking runs each first round itself: `dispatchOrder` fires for none of the orders.
                #expect(!counts.functionsWithLag.contains("dispatchOrder"), "\(counts.functionsWithLag)")
                #expect(counts.pendingSamples > 0)
                #expect((counts.peakKiB["stack"] ?? 0) > 10_000)
                #expect(counts.machineTicks > 0, "the machine's CPU time was read from /proc/stat")
                #expect(counts.databaseGrowthBytes >= 0)
                // Every rider held the ride's stream and saw its final status there; those whose ride was driven
                // saw the driver move.
                #expect(counts.riderStreamsOpened == 10)
                #expect(counts.ridesFollowedToTheEnd == 10, "each rider's stream carried the ride's final status")
                #expect((counts.riderEvents["order.status"] ?? 0) >= 10)
                #expect((counts.riderEvents["driver.position"] ?? 0) > 0, "\(counts.riderEvents)")
                for invariant in report.invariants {
                    #expect(invariant.count == 0, "\(invariant.name)")
                }
                let passed = report.passed
                #expect(passed)
            }
        }
    }

    @Test(
        "the invariants count what went wrong: drivers who never answer leave every ride lost and stuck, and the run fails"
    )
    func invariantsCanFail() async throws {
        try await TestDatabase.shared.withDatabase(logger: LocalStackTests.logger) { client, database in
            try await LocalStackTests.withStack(
                database: database,
                configuration: LocalStackTests.configuration(),
                logger: LocalStackTests.logger
            ) { running in
                var city = CitySimulation.Configuration(
                    apiURL: running.endpoints.apiURL,
                    emulatorURL: running.endpoints.emulatorURL
                )
                city.drivers = 3
                city.rides = 2
                city.rate = 10
                city.radiusMeters = 1000
                // The polling drivers (the option kept beside push), so that both ways of learning offers run.
                city.offers = .poll
                city.offerPollInterval = .milliseconds(300)
                // Every driver lets every offer expire: no ride can end before the deadline.
                city.ignoreShare = 1
                city.declineShare = 0
                // Long enough for both bookings to be answered under CI's full parallel suite (4 s left one out).
                city.deadline = .seconds(15)
                city.settleDeadline = .seconds(1)
                let report = try await Self.run(city, database: database)
                #expect(!report.reachedEnd)
                #expect(report.booked == 2)
                #expect(report.completed == 0)
                let counts = Dictionary(uniqueKeysWithValues: report.invariants.map { ($0.name, $0.count) })
                #expect(counts.first { $0.key.hasPrefix("rides lost") }?.value == 2)
                #expect(counts.first { $0.key.hasPrefix("orders stuck") }?.value == 2)
                #expect(!report.passed)
            }
        }
    }

    /// Runs `city`, reading the stack's database `database` as `simulate` does.
    static func run(
        _ city: CitySimulation.Configuration,
        database: PostgresClient.Configuration
    ) async throws -> CitySimulation.Report {
        try await SimulationDatabase.with(
            configuration: try await Self.connection(database),
            logger: LocalStackTests.logger
        ) { simulationDatabase in
            try await CitySimulation(configuration: city, database: simulationDatabase, logger: LocalStackTests.logger) {
                print($0)
            }.run()
        }
    }

    /// One connection to the test database a `withDatabase` scope gave.
    static func connection(_ database: PostgresClient.Configuration) async throws -> PostgresConnection.Configuration {
        try await TestDatabase.shared.connectionConfiguration(database: database.database ?? "postgres")
    }
}
