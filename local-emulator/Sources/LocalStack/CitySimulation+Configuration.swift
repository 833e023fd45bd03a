import Foundation

extension CitySimulation {
    /// A city: how many drivers and rides, where, how fast, and how its people behave.
    public struct Configuration: Sendable {
        /// The stack's HTTP API, e.g. `http://127.0.0.1:8080`.
        public var apiURL: String
        /// The HyperTrack emulator's base URL (its control API is under `/_emulator`).
        public var emulatorURL: String
        /// Where the API serves `/metrics` unauthenticated (its metrics port's base URL), read during the rides for
        /// the acknowledgements as the API timed them (``APIWebhookTimes``); `nil`: not read. `simulate`'s own stack
        /// sets it; `ridesharing local` logs its metrics port but does not record it for other tools.
        public var apiMetricsURL: String?
        /// Drivers placed around the centre, signed in and online.
        public var drivers = 1000
        /// Rides booked in all (one new rider each).
        public var rides = 200
        /// Bookings per second.
        public var rate = 5.0
        /// Decides every position, think time and choice.
        public var seed: UInt64 = 1
        /// The centre of the city and the radius drivers, pickups and drop-offs are drawn in.
        public var centerLatitude = 52.52
        public var centerLongitude = 13.405
        public var radiusMeters = 3000.0
        /// Emulated seconds the simulation advances a manual emulator clock by, every ``clockInterval``; `0`
        /// leaves the clock alone (an emulator on a scaled clock moves by itself).
        public var clockStep = 10.0
        public var clockInterval: Duration = .milliseconds(200)
        /// How drivers learn of offers: held `GET /v1/events` streams (`push`, as the app does) or asking
        /// `GET /v1/offers` every ``offerPollInterval`` and reading a ride's order every ``orderPollInterval``.
        public var offers: OfferChannel = .push
        /// Whether each rider follows the ride live, as the rider app does: holds `GET /v1/orders/{id}/events` from
        /// the booking's reply until the order's final status (the driver's positions, every status). Off by
        /// default, so that runs compare with the earlier sections of BENCHMARKS.md, which had no rider streams.
        public var riderStreams = false
        /// A pushed driver on a ride whose status went this long without news reads the order once (at the next
        /// heartbeat): a safety net, not the way rides move.
        public var rideCheckInterval: Duration = .seconds(60)
        /// Processes whose memory and CPU are sampled during the rides (the stack's API and worker; the local
        /// stack's one process), and how often they and the pending deliveries are sampled.
        public var processes: [MeasuredProcess] = []
        /// Where the processes come from when they change during the run (a stack that restarts killed or crashed
        /// ones hands out their current pids at each sample); `nil`: ``processes``.
        public var currentProcesses: (@Sendable () -> [MeasuredProcess])?
        public var sampleInterval: Duration = .seconds(1)
        /// How often a polling driver asks `GET /v1/offers`, and reads its ride's order.
        public var offerPollInterval: Duration = .seconds(2)
        public var orderPollInterval: Duration = .milliseconds(250)
        /// A driver's think time before answering an offer, in seconds.
        public var thinkSeconds: ClosedRange<Double> = 0.2...1.5
        /// The share of offers a driver declines, and the share it lets expire.
        public var declineShare = 0.1
        public var ignoreShare = 0.1
        /// Connections the simulated apps' requests share (the event streams have their own, one per driver).
        public var apiConnections = 64
        /// How many sign-ins run at once while the city is set up.
        public var setupConcurrency = 16
        /// Real time the drivers' first positions may take to reach the backend (their phones report through the
        /// emulator's webhooks, delivered as the clock moves).
        ///
        /// 300 s: at 10,000 drivers under chaos (15th session, twice) each phone's first report went out as its own
        /// delivery when tracking started, one at a time, ~140 ms each while the sign-ins loaded the API; the clock's
        /// steps waited behind them, so the emulated clock stood still for three minutes and the positions were
        /// three minutes old when the last arrived. Fresh positions came only once the clock caught up with real
        /// time (it runs faster), after the 120 s this was.
        public var setupDeadline: Duration = .seconds(300)
        /// How often a progress line is printed.
        public var progressInterval: Duration = .seconds(5)
        /// Real time the rides may take, from the first booking, before the simulation gives up on the rest.
        public var deadline: Duration = .seconds(600)
        /// Real time the emulator's trips may take to finish once every ride is final.
        public var settleDeadline: Duration = .seconds(60)
        /// Real time the whole run may take beyond the three deadlines above (the sign-ins, the end's reads and the
        /// report) before it is given up as stuck, with what it was waiting on (``SimulationActivity``).
        public var overrun: Duration = .seconds(300)

        /// Where sign-in codes are read: `nil`, the local outbox (`ridesharing local`); against `serve`, the SMS
        /// webhook's receiver (``SimulationStack/codes``).
        public var codes: SignInFlow.Codes?
        /// Runs beside the rides, from the first booking until every ride is final (then cancelled): the chaos.
        public var duringRides: (@Sendable () async -> Void)?

        public init(apiURL: String, emulatorURL: String) {
            self.apiURL = apiURL
            self.emulatorURL = emulatorURL
        }
    }
}

extension CitySimulation {
    /// How a simulated driver app learns of offers and of its ride's progress.
    public enum OfferChannel: String, Sendable, CaseIterable {
        /// Server-sent events on `GET /v1/events` (`offer.new`, `order.status`).
        case push
        /// `GET /v1/offers` and `GET /v1/orders/{id}` on an interval.
        case poll
    }
}
