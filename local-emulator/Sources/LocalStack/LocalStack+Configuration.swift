import Foundation
import Functions
import HyperTrackEmulator
import TriggerRuntime

extension LocalStack {
    /// How the local stack runs: ports, the emulator's clock and credentials, where state is kept.
    public struct Configuration: Sendable {
        /// Where the HTTP API listens (`port` 0 picks a free one).
        public var apiHost: String = "127.0.0.1"
        public var apiPort: Int = 8080
        /// The port of `/metrics` (0 picks a free one, logged as `metrics.port`); `nil` serves it on the API's port
        /// behind an operator key. Default 0: on a laptop nothing scrapes it unless asked.
        public var metricsPort: Int? = 0
        /// Where the HyperTrack emulator listens (0 picks a free one).
        public var emulatorPort: Int = 4010
        /// The emulator's clock: `.scaled(rate:)` for watching, `.manual()` for stepping (tests, the demo).
        public var clock: HyperTrackEmulator.ClockMode = .scaled(rate: 1)
        /// Top cruise speed of the emulator's simulated drivers, m/s (see `HyperTrackEmulator.Configuration.speed`).
        public var driverSpeed: Double = 10
        /// Emulated seconds between the emulator's simulation steps (and a driving device's locations). Default 5;
        /// tests of driving events use 1, as a phone's GPS reports while driving.
        public var emulatorTickInterval: Double = 5
        /// Emulated seconds between the location webhooks of a phone that stands still (the emulator's
        /// `locationReportInterval`; a moving one reports every step). Default 30; `nil` turns them off.
        public var locationReportInterval: Double? = 30
        /// Emulated seconds between a driving phone's location webhooks (the emulator's `movingReportInterval`).
        /// Default `nil`: every step.
        public var movingReportInterval: Double?
        /// The most events one emulator webhook carries (`nil`: a step's events in one delivery), and how many
        /// attempts its log keeps (`nil`: all). A city of thousands of phones wants both bounded.
        public var webhookBatchSize: Int?
        public var webhookLogLimit: Int?
        /// The credentials the emulator accepts and the API's client uses.
        public var accountID: String = "local-account"
        public var secretKey: String = "local-secret-key"
        /// The secret the emulator signs webhooks with and the API verifies.
        public var webhookSecret: String = "local-webhook-secret"
        /// The backend's functions and API settings (its webhook secret is replaced by `webhookSecret`).
        public var backend = Backend.Configuration()
        /// The worker's settings.
        public var runtime = TriggerRuntime.Configuration()
        /// Apply migrations and install capture triggers before the worker starts.
        public var prepare = true
        /// Where the emulator's state is loaded from at start (if `state.json` exists there) and saved to on
        /// shutdown; `nil` keeps it in memory only.
        public var emulatorStateDirectory: String?
        /// Whether the emulator creates a device the first time the backend names it (`PATCH /devices/{id}` when
        /// a driver signs up, `POST /trips`). On by default: locally no phone SDK registers devices, and drivers
        /// sign up with made-up device ids. Off, unknown devices are 404 `device_not_found` as on HyperTrack.
        public var emulatorCreatesDevices = true
        /// How often the HyperTrack client polls a Nearby request.
        public var nearbyPollInterval: Duration = .milliseconds(200)
        /// Receives the public share link (`http://…/share/{token}`) the stack makes for each ride booked on it.
        /// Default `nil`: the link is logged at notice level.
        public var onShareLink: (@Sendable (_ orderID: UUID, _ url: String) -> Void)? = nil

        /// The defaults: API on 8080, emulator on 4010, real-time clock, state in memory.
        public init() {}
    }

    /// What a running stack tells its users: URLs and the credentials it made up. Written to
    /// `<data>/stack.json` by `ridesharing local` so `ridesharing functions call` can find it.
    public struct Endpoints: Sendable, Codable, Hashable {
        /// The HTTP API's base URL, e.g. `http://127.0.0.1:8080`.
        public var apiURL: String
        /// Where HyperTrack's webhooks are posted.
        public var webhookURL: String
        /// The emulator's base URL (HyperTrack's API).
        public var emulatorURL: String
        /// HyperTrack credentials (Basic auth at the emulator).
        public var accountID: String
        public var secretKey: String
        /// The webhook signing secret.
        public var webhookSecret: String
        /// The database's URL, when the caller knows it (`nil` otherwise).
        public var databaseURL: String?
        /// The process serving the stack (API, worker and emulator in one), for tools that measure its memory and
        /// CPU (`simulate`); `nil` in files written before it was recorded.
        public var pid: Int32?
        /// The base URL of the API's `/metrics` port (``Configuration/metricsPort``), which `simulate` reads for the
        /// acknowledgements as the API timed them; `nil` when `/metrics` has no port of its own, or in files written
        /// before it was recorded.
        public var metricsURL: String?

        /// Every URL and credential, one per line, and what to do next, for a terminal.
        public var banner: String {
            """
            HTTP API            \(self.apiURL)/v1   (ready: \(self.apiURL)/readyz)
            HyperTrack webhooks \(self.webhookURL)
            HyperTrack emulator \(self.emulatorURL)   (control: \(self.emulatorURL)/_emulator)
              account id        \(self.accountID)
              secret key        \(self.secretKey)
              webhook secret    \(self.webhookSecret)
            Database            \(self.databaseURL ?? "(given by the caller)")
            Metrics             \(self.metricsURL.map { "\($0)/metrics" } ?? "(on the API's port, operator key)")

            Next: the API is described at \(self.apiURL)/openapi.json; the README's "Five minutes with curl" books
            and plays a ride. With --clock-rate 0 the emulator's time moves only when you say so:
              curl -X POST \(self.emulatorURL)/_emulator/clock/advance -H 'content-type: application/json' -d '{"seconds": 60}'
            """
        }
    }

    /// A started stack: its endpoints and the in-process emulator (to step its clock, register devices, add faults).
    public struct Running: Sendable {
        public var endpoints: Endpoints
        public var emulator: HyperTrackEmulator
    }
}
