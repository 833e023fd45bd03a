import EmbeddedPostgres
import Foundation
import LocalStack
import Logging
import PostgresNIO
import Testing

/// `ridesharing simulate` in small: a real local stack (PostgreSQL, API, worker, emulator on a manual clock) and a
/// city of 20 drivers and 30 rides run to the end with every invariant 0.
@Suite("Simulation: a small city runs to completion with its invariants 0", .timeLimit(.minutes(2)))
struct SimulationTests {
    @Test("20 drivers, 30 rides: every ride ends, no ride lost, one trip per leg, no trip left active, nothing dead")
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
                city.drivers = 20
                city.rides = 30
                city.rate = 10
                city.seed = 7
                city.radiusMeters = 1500
                city.clockStep = 15
                city.offerPollInterval = .milliseconds(300)
                city.thinkSeconds = 0.05...0.3
                city.progressInterval = .seconds(10)
                // The deadlines bound the run (on a loaded 2-core machine it takes a fraction of them).
                city.deadline = .seconds(75)
                city.settleDeadline = .seconds(15)
                let report = try await CitySimulation(
                    configuration: city,
                    database: client,
                    logger: LocalStackTests.logger
                ) { print($0) }.run()
                for line in report.lines { print(line) }
                #expect(report.reachedEnd, "every ride completed or cancelled before the deadline")
                #expect(report.booked == 30)
                #expect(report.completed > 0, "drivers completed rides")
                // The trip invariants looked at real trips: a pickup and a drop-off trip per completed ride.
                #expect(report.trips == 2 * report.completed)
                for invariant in report.invariants {
                    #expect(invariant.count == 0, "\(invariant.name)")
                }
                #expect(report.passed)
            }
        }
    }
}
