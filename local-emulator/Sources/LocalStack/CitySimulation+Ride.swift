import Foundation

extension CitySimulation {
    /// The rides phase of a run: when it began and ended, the booked orders, whether all ended in time.
    struct Ride: Sendable {
        var setupSeconds: Double
        var rideSeconds: Double
        var startedAt: Date
        var endedAt: Date
        var orders: [String]
        var reachedEnd: Bool
        /// Requests made while setting up (excluded from the rides' requests per second).
        var requestsBefore: Int
        /// Emulated seconds the clock moved meanwhile (set by the caller, which runs the clock).
        var clockSeconds: Double = 0
        /// Location events the webhook endpoint acknowledged meanwhile, as the emulator counted its delivered
        /// attempts (the endpoint keeps only those a drive can read, so the database cannot count them).
        var locationEvents: Int = 0
    }

    /// What is read before the rides so that the report counts only theirs.
    struct Baseline: Sendable {
        var databaseBytes: Int64
        var roundTrips: Int
        /// Whether `pg_stat_statements` counts (the server loads it; it was reset here, so it counts the rides).
        var statements: Bool
        /// The emulator's webhook attempts by outcome so far (another run's, on a shared stack).
        var webhookOutcomes: [String: Int]
    }

    func baseline(emulator: EmulatorControl) async throws -> Baseline {
        await self.apiWebhookTimes?.read()
        return Baseline(
            databaseBytes: try await self.databaseSize(),
            roundTrips: try await emulator.roundTrips(after: .max).total,
            statements: await self.resetStatementStatistics(),
            webhookOutcomes: try await emulator.webhookOutcomes()
        )
    }

    /// The drivers at work (listening to their streams, or polling), then, once every stream is open, the bookings
    /// and the sampler, until every ride is final or the deadline.
    func ride(
        drivers: [(Driver, String)],
        bookings: [Booking],
        riders: [SignInFlow.Session],
        api: SimulationClient,
        events: EventStreamClient?,
        riderEvents: EventStreamClient?,
        sampler: SimulationSampler,
        emulator: EmulatorControl,
        started: ContinuousClock.Instant
    ) async throws -> Ride {
        let c = self.configuration
        return try await withThrowingTaskGroup(of: Void.self) { city in
            for (driver, token) in drivers {
                city.addTask {
                    if let events {
                        await self.listen(driver, token: token, api: api, events: events)
                    } else {
                        await self.work(driver, token: token, api: api)
                    }
                }
            }
            defer { city.cancelAll() }
            if events != nil {
                // An offer pushed before its driver listens would never be seen: book once every stream is open.
                try await eventually(
                    "an open event stream for each of the \(drivers.count) drivers",
                    timeout: c.setupDeadline
                ) {
                    self.recorder.streamsOpenCount >= drivers.count
                }
            }
            let locationsBefore = try await emulator.deliveredEvents(type: "location")
            let setUp = ContinuousClock.now
            let startedAt = Date()
            self.say(
                String(format: "set up in %.1f s; booking", Self.seconds(setUp - started))
                    + " \(bookings.count) rides at \(c.rate)/s, offers by \(c.offers.rawValue)"
            )
            let requestsBefore = self.recorder.snapshot.routes.values.reduce(0) { $0 + $1.count }
            let activity = self.recorder.activity
            city.addTask {
                try await activity.during("the bookings (and the riders following their rides)") {
                    try await self.book(bookings, riders: riders, api: api, events: riderEvents)
                }
            }
            city.addTask { await activity.during("the sampler") { await self.sample(into: sampler, from: setUp) } }
            if let times = self.apiWebhookTimes {
                city.addTask { await activity.during("the API's /metrics reader") { await self.read(times) } }
            }
            if let chaos = self.configuration.duringRides {
                city.addTask { await activity.during("the chaos") { await chaos() } }
            }
            let (orders, end) = try await activity.during("the progress watch") { try await self.watch(from: setUp) }
            let rideSeconds = Self.seconds(ContinuousClock.now - setUp)
            let endedAt = Date()
            if riderEvents != nil && end {
                // The last statuses are on their way to the riders' streams when the database shows every order
                // final; the report counts the riders who saw their ride's end, so they get the settling time.
                try? await activity.during("the riders' streams reaching their rides' end") {
                    try await eventually("every rider seeing their ride's final status", timeout: c.settleDeadline) {
                        self.recorder.ridesFollowedToTheEndCount >= orders.count
                    }
                }
            }
            let locationsAfter = try await emulator.deliveredEvents(type: "location")
            return Ride(
                setupSeconds: Self.seconds(setUp - started),
                rideSeconds: rideSeconds,
                startedAt: startedAt,
                endedAt: endedAt,
                orders: orders,
                reachedEnd: end,
                requestsBefore: requestsBefore,
                locationEvents: locationsAfter - locationsBefore
            )
        }
    }

    /// What the database and the emulator measured over the rides.
    func measurements(of ride: Ride, before: Baseline, emulator: EmulatorControl) async throws -> DatabaseMeasurements {
        var measured = DatabaseMeasurements()
        measured.arrivalToReached = try await self.arrivalToReached(orders: ride.orders)
        measured.offerWrites = try await self.offerWrites(orders: ride.orders)
        measured.lags = try await self.triggerLags(from: ride.startedAt, to: ride.endedAt)
        measured.sizeBefore = before.databaseBytes
        measured.sizeAfter = try await self.databaseSize()
        let roundTrips = try await emulator.roundTrips(after: before.roundTrips)
        measured.webhookRoundTrips = roundTrips.milliseconds
        measured.webhookWireRoundTrips = roundTrips.wireMilliseconds
        if let times = self.apiWebhookTimes {
            await times.read()
            measured.apiWebhookTimes = times.snapshot
        }
        if before.statements { measured.statements = try await self.topStatements() }
        return measured
    }
}
