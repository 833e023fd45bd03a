import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import Logging
import NIOHTTP1
import PostgresNIO
import Synchronization
import TriggerRuntime

/// A city in a box (`ridesharing simulate`): drivers placed around a centre on the emulator, signed in and online,
/// each watching its offers and answering after a think time (some decline, some let the offer expire); riders
/// booking at a rate; every accepted ride driven to completion on the emulator's clock. At the end, the throughput,
/// the latencies and the invariants (each a count that must be 0), checked from the database and the emulator.
///
/// It talks to the stack as the apps do (the HTTP API, signing in by phone code through the local outbox), to the
/// emulator through its control API over HTTP (so it runs against any stack, not only one in this process), and
/// to the database only to watch progress and check the invariants.
public struct CitySimulation: Sendable {
    let configuration: Configuration
    let database: SimulationDatabase
    let logger: Logger
    let say: @Sendable (String) -> Void
    let recorder = SimulationRecorder()
    /// The acknowledgements as the API timed them, when its `/metrics` is known.
    let apiWebhookTimes: APIWebhookTimes?
    /// Makes this run's phones and devices its own, so that a second run against the same stack signs up anew.
    let runID = String(UInt32.random(in: 0..<UInt32.max) % 10_000)

    /// Creates the simulation.
    /// - Parameters:
    ///   - configuration: The city.
    ///   - database: The stack's database.
    ///   - logger: The logger.
    ///   - say: Receives the progress lines.
    public init(
        configuration: Configuration,
        database: SimulationDatabase,
        logger: Logger,
        say: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.database = database
        self.logger = logger
        self.say = say
        self.apiWebhookTimes = configuration.apiMetricsURL.map(APIWebhookTimes.init(metricsBaseURL:))
    }

    /// A simulated driver: who, which phone, where it starts.
    struct Driver: Sendable {
        var index: Int
        var device: String
        var phone: String
        var latitude: Double
        var longitude: Double
    }

    /// A booking to make: the rider's phone and the ride.
    struct Booking: Sendable {
        var index: Int
        var phone: String
        var pickup: (latitude: Double, longitude: Double)
        var dropoff: (latitude: Double, longitude: Double)
    }

    /// Runs the city to the end (every ride final, or the deadline) and returns the report.
    ///
    /// Throws `timedOut` when the run takes longer than its deadlines and ``Configuration/overrun`` together,
    /// naming the awaits that were still waiting (``waiting(longerThan:)``); the stuck run is cancelled and left
    /// behind rather than awaited, so a caller can tear its stack down (which ends most such waits).
    public func run() async throws -> Report {
        let c = self.configuration
        let bound = c.setupDeadline + c.deadline + c.settleDeadline + c.overrun
        do {
            return try await self.bounded(by: bound)
        } catch is CancellationError {
            // Cancelled (Ctrl-C, a test's time limit): what it was waiting on says why it had not ended.
            self.say("cancelled; waiting on: " + self.waiting(longerThan: .seconds(10)).joined(separator: "; "))
            throw CancellationError()
        }
    }

    func bounded(by bound: Duration) async throws -> Report {
        try await abandoning(
            after: bound,
            timedOut: {
                LocalStackError.timedOut(
                    "the city did not end within \(bound) (its deadlines and overrun); still waiting on: "
                        + self.waiting(longerThan: .seconds(10)).joined(separator: "; ")
                )
            }
        ) {
            try await self.runWithClient()
        }
    }

    /// What the run has been waiting on for longer than `age`: its requests, streams, queries and phases.
    public func waiting(longerThan age: Duration) -> [String] {
        self.recorder.activity.waiting(longerThan: age) + self.database.activity.waiting(longerThan: age)
    }

    func runWithClient() async throws -> Report {
        // The apps' requests on a pool of their own: the shared client's 8 connections per host would queue a
        // city's requests behind each other and measure the queue, not the API. A connection that cannot be made
        // fails the requests waiting for one, and each app retries on its own clock (`persistently`, or its next
        // event), not on the pool's shared back-off: see `EventStreamClient.init`.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: self.configuration.apiConnections
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let report = try await self.run(http: http)
            try await http.shutdown()
            return report
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    func run(http: HTTPClient) async throws -> Report {
        let c = self.configuration
        let api = SimulationClient(
            api: StackAPI(baseURL: c.apiURL, httpClient: http),
            recorder: self.recorder,
            codes: c.codes
        )
        let emulator = EmulatorControl(baseURL: c.emulatorURL)
        let (drivers, bookings) = self.plan()
        let started = ContinuousClock.now
        let advanced = AdvancedSeconds()
        return try await withThrowingTaskGroup(of: Void.self) { clock in
            if c.clockStep > 0 {
                clock.addTask {
                    // Steps start every interval, however long one takes: sleeping an interval after each step ran
                    // the clock at 2.9× real time when 5× was asked (a step at 10,000 drivers takes ~0.15 s). A
                    // step later than its time starts at once; more than a second behind, the schedule starts
                    // again from now instead of rushing to catch up.
                    var next = ContinuousClock.now
                    while !Task.isCancelled {
                        do {
                            try await self.recorder.activity.during("the clock's advance") {
                                try await emulator.advance(seconds: c.clockStep)
                            }
                            advanced.total.withLock { $0 += c.clockStep }
                        } catch {
                            // A failed step is counted, not the end of the clock: a stopped clock stalls every ride
                            // silently (nothing awaits this task until the end).
                            if Task.isCancelled { return }
                            self.recorder.error("clock advance: \(error)")
                        }
                        next = next.advanced(by: c.clockInterval)
                        if next < ContinuousClock.now - .seconds(1) { next = ContinuousClock.now }
                        // The pace of the emulated clock (one step per interval): the clock itself.
                        try await Task.sleep(until: next, clock: .continuous)
                    }
                }
            }
            defer { clock.cancelAll() }
            self.say("setting up \(drivers.count) drivers and \(bookings.count) riders (run \(self.runID))")
            let activity = self.recorder.activity
            let setup = try await activity.during("set-up: signing in the drivers and riders") {
                try await self.signIn(drivers: drivers, bookings: bookings, api: api, emulator: emulator)
            }
            let (driverSessions, riderSessions) = (setup.drivers, setup.riders)
            try await activity.during("set-up: the drivers' first positions") {
                try await self.awaitPositions(of: driverSessions.map(\.userID), within: c.setupDeadline)
            }
            if c.clockStep > 0 {
                try await activity.during("set-up: the emulated clock catching up with real time") {
                    try await self.awaitClock(emulator, within: c.setupDeadline)
                }
            }
            let sampler = SimulationSampler()
            let before = try await activity.during("set-up: the baseline") {
                try await self.baseline(emulator: emulator)
            }
            // Made last before the do/catch that shuts it down: a client dropped without shutdown traps.
            let events = c.offers == .push ? EventStreamClient(baseURL: c.apiURL, streams: drivers.count) : nil
            // The riders' phones: a client of their own, a stream per ride in flight (at most one per booking).
            let riderEvents = c.riderStreams ? EventStreamClient(baseURL: c.apiURL, streams: bookings.count) : nil
            var ride: Ride
            let advancedBefore = advanced.total.withLock { $0 }
            do {
                ride = try await activity.during("rides") {
                    try await self.ride(
                        drivers: zip(drivers, driverSessions).map { ($0, $1.accessToken) },
                        bookings: bookings,
                        riders: riderSessions,
                        api: api,
                        events: events,
                        riderEvents: riderEvents,
                        sampler: sampler,
                        emulator: emulator,
                        started: started
                    )
                }
                ride.clockSeconds = advanced.total.withLock { $0 } - advancedBefore
                try await activity.during("closing the event streams' clients") {
                    try await events?.shutdown()
                    try await riderEvents?.shutdown()
                }
            } catch {
                try? await events?.shutdown()
                try? await riderEvents?.shutdown()
                throw error
            }
            return try await activity.during("after the rides: settling, the invariants and the measurements") {
                try await self.finish(
                    ride: ride,
                    drivers: drivers,
                    sessions: (driverSessions, riderSessions),
                    before: before,
                    sampler: sampler,
                    api: api,
                    emulator: emulator,
                    stopClock: { clock.cancelAll() }
                )
            }
        }
    }

    /// Signs every driver in (and places its phone on the emulator) and every rider.
    func signIn(
        drivers: [Driver],
        bookings: [Booking],
        api: SimulationClient,
        emulator: EmulatorControl
    ) async throws -> (drivers: [SignInFlow.Session], riders: [SignInFlow.Session]) {
        let c = self.configuration
        let driverSessions = try await Self.concurrently(drivers, limit: c.setupConcurrency) { driver in
            let session = try await api.accounts.driver(
                "Driver \(driver.index)",
                device: driver.device,
                phone: driver.phone
            )
            try await emulator.place(
                device: driver.device,
                name: "Driver \(driver.index)",
                latitude: driver.latitude,
                longitude: driver.longitude
            )
            return session
        }
        let riderSessions = try await Self.concurrently(bookings, limit: c.setupConcurrency) { booking in
            try await api.accounts.rider("Rider \(booking.index)", phone: booking.phone)
        }
        return (driverSessions, riderSessions)
    }

    /// After the rides: the drivers off duty, the emulator's trips settled, the clock stopped, then the invariants
    /// and the measurements read into the report.
    func finish(
        ride: Ride,
        drivers: [Driver],
        sessions: (drivers: [SignInFlow.Session], riders: [SignInFlow.Session]),
        before: Baseline,
        sampler: SimulationSampler,
        api: SimulationClient,
        emulator: EmulatorControl,
        stopClock: () -> Void
    ) async throws -> Report {
        let c = self.configuration
        let (driverSessions, riderSessions) = sessions
        // Off duty at the end: a driver left online would be offered the next run's rides and, with nobody
        // answering for it, hold each of them for an offer's lifetime.
        _ = try await Self.concurrently(driverSessions, limit: c.setupConcurrency) { session in
            try await api.send(
                .PUT,
                "/v1/drivers/me/availability",
                json: ["available": false],
                token: session.accessToken
            )
        }
        let devices = Set(drivers.map(\.device))
        try await self.awaitTripsSettled(devices: devices, emulator: emulator)
        stopClock()
        let (invariants, trips) = try await self.invariants(
            orders: ride.orders,
            riders: riderSessions.map(\.userID),
            devices: devices,
            emulator: emulator,
            outcomesBefore: before.webhookOutcomes
        )
        let unfinished = try await self.unfinished(orders: ride.orders, ridesEnded: ride.endedAt, emulator: emulator)
        let measurements = try await self.measurements(of: ride, before: before, emulator: emulator)
        return Report(
            configuration: c,
            runID: self.runID,
            setupSeconds: ride.setupSeconds,
            rideSeconds: ride.rideSeconds,
            reachedEnd: ride.reachedEnd,
            orders: ride.orders,
            requestsBefore: ride.requestsBefore,
            clockSeconds: ride.clockSeconds,
            measured: self.recorder.snapshot,
            locationEvents: ride.locationEvents,
            trips: trips,
            invariants: invariants,
            unfinished: unfinished,
            sampled: sampler.snapshot,
            measurements: measurements
        )
    }

    /// Every driver's phone and start, and every booking, drawn from the seed (positions in a disc of the radius).
    func plan() -> ([Driver], [Booking]) {
        let c = self.configuration
        var places = SeededGenerator(seed: c.seed, stream: 1)
        let drivers = (0..<c.drivers).map { index in
            let (latitude, longitude) = self.point(&places)
            return Driver(
                index: index,
                device: "sim-\(self.runID)-\(index)",
                phone: self.phone(index, kind: 1),
                latitude: latitude,
                longitude: longitude
            )
        }
        var rides = SeededGenerator(seed: c.seed, stream: 2)
        let bookings = (0..<c.rides).map { index in
            Booking(
                index: index,
                phone: self.phone(index, kind: 2),
                pickup: self.point(&rides),
                dropoff: self.point(&rides)
            )
        }
        return (drivers, bookings)
    }

    /// `+49 15 k rrrr iiiii`: kind (1 drivers, 2 riders), the run, the index.
    func phone(_ index: Int, kind: Int) -> String {
        "+4915\(kind)" + String(format: "%04d%05d", Int(self.runID) ?? 0, index % 100_000)
    }

    /// A point drawn uniformly in the disc around the centre.
    func point(_ random: inout SeededGenerator) -> (latitude: Double, longitude: Double) {
        let c = self.configuration
        let distance = c.radiusMeters * Double.random(in: 0...1, using: &random).squareRoot()
        let bearing = Double.random(in: 0..<(2 * .pi), using: &random)
        let latitude = c.centerLatitude + distance * cos(bearing) / 111_320
        let longitude = c.centerLongitude + distance * sin(bearing) / (111_320 * cos(c.centerLatitude * .pi / 180))
        return ((latitude * 1e7).rounded() / 1e7, (longitude * 1e7).rounded() / 1e7)
    }

    /// Runs `body` for every item, at most `limit` at once; the results in the items' order.
    static func concurrently<Item: Sendable, Output: Sendable>(
        _ items: [Item],
        limit: Int,
        _ body: @escaping @Sendable (Item) async throws -> Output
    ) async throws -> [Output] {
        try await withThrowingTaskGroup(of: (Int, Output).self) { group in
            var results = [Output?](repeating: nil, count: items.count)
            var next = 0
            while next < min(limit, items.count) {
                let (index, item) = (next, items[next])
                group.addTask { (index, try await body(item)) }
                next += 1
            }
            while let (index, output) = try await group.next() {
                results[index] = output
                if next < items.count {
                    let (index, item) = (next, items[next])
                    group.addTask { (index, try await body(item)) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        SimulationClient.milliseconds(duration) / 1000
    }
}

/// Emulated seconds the simulation's clock task has moved the emulator's clock.
final class AdvancedSeconds: Sendable {
    let total = Mutex(0.0)
}
