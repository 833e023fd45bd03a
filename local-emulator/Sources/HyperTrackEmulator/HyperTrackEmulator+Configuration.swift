import Foundation

extension HyperTrackEmulator {
    /// How the emulator's clock moves.
    public struct ClockMode: Sendable, Equatable {
        enum Mode: Sendable, Equatable {
            case manual(start: Date?)
            case scaled(rate: Double, start: Date?)
        }

        let mode: Mode

        /// The clock only moves when told to (`POST /_emulator/clock/advance`, ``HyperTrackEmulator/advanceClock(by:)``).
        /// - Parameter start: emulated time at start-up; by default the real time when the emulator starts, in whole
        ///   seconds (read then, not when this mode is made: a test that made its configuration, then waited two
        ///   minutes for a loaded machine to start its stack, had every driver stale). Not a fixed date: the backend
        ///   judges a position's age against its own clock (dispatch ignores positions older than two minutes), so an
        ///   emulated clock that starts in the past would make every driver stale. Pass a date for reproducible times.
        public static func manual(startingAt start: Date? = nil) -> ClockMode {
            ClockMode(mode: .manual(start: start))
        }

        /// The clock runs at `rate` times real time (it can still be advanced on top).
        /// - Parameters:
        ///   - rate: multiple of real time, > 0 (e.g. 10 plays a 10-minute ride in a minute).
        ///   - start: emulated time at start-up; `nil` means the real time at start-up.
        public static func scaled(rate: Double = 1, startingAt start: Date? = nil) -> ClockMode {
            ClockMode(mode: .scaled(rate: rate, start: start))
        }
    }

    /// Settings of an emulator. Every field has a documented default.
    public struct Configuration: Sendable {
        /// Address to listen on. Default `127.0.0.1`.
        public var host: String = "127.0.0.1"
        /// Port to listen on; 0 (the default) picks a free one, see ``HyperTrackEmulator/baseURL()``.
        public var port: Int = 0
        /// Account id accepted as the Basic auth user name. Default `emulator-account`.
        public var accountID: String = "emulator-account"
        /// Secret key accepted as the Basic auth password. Default `emulator-secret`.
        public var secretKey: String = "emulator-secret"
        /// Publishable key put in `embed_url`s. Default `emulator-publishable-key`.
        public var publishableKey: String = "emulator-publishable-key"
        /// Where webhooks are POSTed; `nil` (the default) logs them as not sent.
        public var webhookURL: String?
        /// HMAC-SHA256 key of `x-hypertrack-signature`; `nil` (the default) uses ``secretKey``.
        public var webhookSecret: String?
        /// Top cruise speed of simulated drivers in metres per second. Default 10 (36 km/h). Each street is driven
        /// at 90% of its posted limit, at most this; corners, starts and stops are slower (see ``DrivingLimits``).
        public var speed: Double = 10
        /// The clock. Default ``ClockMode/manual(startingAt:)``.
        public var clock: ClockMode = .manual()
        /// Destination radius (m) of trips that give none. Default 30.
        public var arrivalRadius: Double = 30
        /// Seed of every "random" choice (ids, share URLs, fault rates). Default 1.
        public var seed: UInt64 = 1
        /// Advanced knobs.
        public var options = Options()

        /// Creates a configuration with the defaults above.
        public init() {}

        /// The key that signs webhooks.
        var signingKey: String { webhookSecret ?? secretKey }
    }

    /// Advanced settings, all with defaults.
    public struct Options: Sendable {
        /// Emulated seconds between simulation steps (and location webhooks of a moving device; around an injected
        /// manoeuvre a moving device reports every second, delivered with the step's). Default 5.
        public var tickInterval: Double = 5
        /// Emulated seconds a trip stays `processing_completion` before it is `completed`. Default 2.
        public var completionDelay: Double = 2
        /// Emulated seconds a nearby request stays `pending`. Default 2. With 0 a request is `completed` at once
        /// (useful with the manual clock, where `pending` lasts until the clock is advanced).
        public var nearbyDelay: Double = 2
        /// Emulated seconds between webhook retries. Default 20.
        public var webhookRetryInterval: Double = 20
        /// Retries after a failed webhook attempt (5xx, timeout, connection error). Default 3.
        public var webhookMaxRetries: Int = 3
        /// Real time a webhook receiver has to answer. Default 10 s.
        public var webhookTimeout: Duration = .seconds(10)
        /// Page size of `GET /trips`, `GET /devices?pagination=1`, `GET /geofences` and nearby results. Default 100.
        public var pageSize: Int = 100
        /// Real time between clock updates in ``ClockMode/scaled(rate:startingAt:)`` mode. Default 100 ms.
        public var realTimeTickInterval: Duration = .milliseconds(100)
        /// Emulated seconds between the `location` webhooks of a tracking device that stands still (a moving one
        /// reports every step). Default 30, about what the SDK sends from a phone at rest; `nil` turns them off.
        /// Reports fall on simulation steps, so the effective interval is rounded up to ``tickInterval``.
        public var locationReportInterval: Double? = 30
        /// Emulated seconds between the `location` webhooks of a driving device. Default `nil`: every step. A load
        /// test that runs the clock faster than real time sets it so each phone still reports at a phone's real
        /// rate (a city of 10,000 drivers on a clock 5× real time, every driving phone reporting each 5-second step,
        /// posts five times the locations a real city would). The step that ends a drive always reports (the phone
        /// stopped where the backend expects it), and so do the 1-second locations around an injected manoeuvre.
        /// Rounded up to ``tickInterval`` like the still devices' interval.
        public var movingReportInterval: Double?
        /// The most events one webhook delivery carries; a step with more sends several, in order. With a size,
        /// the reports that API calls make at once (a phone starting to track) share deliveries up to it too,
        /// instead of one delivery per call. Default `nil`: one delivery per step, however many devices reported (a
        /// city of 10,000 phones would post megabytes), and one per such call.
        public var webhookBatchSize: Int?
        /// How many of a step's deliveries are in flight at once. Default 1: one after another, in order, which tests
        /// rely on. HyperTrack's own order and concurrency are unknown (a backend must cope with any order); a load
        /// test sets more so that a step of thousands of phones does not hold the clock back.
        public var webhookConcurrency: Int = 1
        /// How many webhook attempts the log (`GET /_emulator/webhooks`) keeps, the oldest dropped first. Default
        /// `nil`: all (a long run at scale holds every body it sent, so load tools set a limit).
        public var webhookLogLimit: Int?
        /// Create unknown devices when a trip, PATCH, start or stop names them. Default `false`: HyperTrack answers
        /// 404 `device_not_found` for a device no SDK registered, and a backend must cope with that. Turn it on
        /// where no phone registers devices (the local stack, where drivers sign up with made-up device ids).
        public var autoCreateDevices = false
        /// Where devices created without a position are placed (around it, deterministically).
        /// Default: San Francisco, `[-122.4194, 37.7749]`.
        public var defaultLongitude: Double = -122.4194
        /// See ``defaultLongitude``.
        public var defaultLatitude: Double = 37.7749
        /// Load state from this directory (`state.json`) before serving. Default `nil`.
        public var importDirectory: String?
        /// Save state to this directory (`state.json`) when the service stops. Default `nil`.
        public var exportDirectory: String?

        /// Creates options with the defaults above.
        public init() {}
    }
}
