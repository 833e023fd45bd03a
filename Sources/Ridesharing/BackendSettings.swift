import AsyncHTTPClient
import BackendServer
import Foundation
import Functions
import HyperTrackAPI
import Logging
import TriggerRuntime

/// The backend's settings from the environment: HyperTrack, the HTTP API, pricing, dispatch and webhooks.
struct BackendSettings: Sendable {
    /// HyperTrack's client settings; `nil` when no credentials are set.
    var hyperTrack: HyperTrackClient.Configuration?
    /// The functions' and API's settings.
    var backend: Functions.Backend.Configuration
    /// Where the HTTP API listens.
    var httpHost: String
    var httpPort: Int

    /// The variables read here, with their defaults, for `--help`.
    static var variables: String { ConfigurationVariables.help(.backend) }

    /// Reads the settings; throws `Configuration.Invalid` naming the variable that is wrong.
    /// - Parameters:
    ///   - environment: The variables.
    ///   - requireHyperTrack: Fail when HyperTrack credentials are missing (the worker and API need them).
    init(environment: [String: String], requireHyperTrack: Bool) throws {
        try self.init(environment: EnvironmentReader(environment), requireHyperTrack: requireHyperTrack)
    }

    /// Reads the settings through `environment` (which records what is read).
    init(environment: EnvironmentReader, requireHyperTrack: Bool) throws {
        func value(_ key: String) -> String? {
            environment[key].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        func integer(_ key: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            guard let text = value(key) else { return fallback }
            guard let number = Int(text), range.contains(number) else {
                throw Configuration.Invalid(
                    description: "\(key) must be an integer in \(range.lowerBound)...\(range.upperBound), got \"\(text)\""
                )
            }
            return number
        }
        func boolean(_ key: String) throws -> Bool {
            guard let text = value(key) else { return false }
            guard let flag = Bool(text.lowercased()) else {
                throw Configuration.Invalid(description: "\(key) must be true or false, got \"\(text)\"")
            }
            return flag
        }

        if value("HYPERTRACK_ACCOUNT_ID") != nil || value("HYPERTRACK_SECRET_KEY") != nil || requireHyperTrack {
            do {
                let names = ["HYPERTRACK_BASE_URL", "HYPERTRACK_ACCOUNT_ID", "HYPERTRACK_SECRET_KEY"]
                self.hyperTrack = try HyperTrackClient.Configuration.fromEnvironment(
                    Dictionary(uniqueKeysWithValues: names.compactMap { name in environment[name].map { (name, $0) } })
                )
            } catch {
                throw Configuration.Invalid(
                    description: "\(error); the worker and the API call HyperTrack (for a laptop, `ridesharing local` "
                        + "runs the HyperTrack emulator and sets these)"
                )
            }
        } else {
            self.hyperTrack = nil
        }
        var backend = Functions.Backend.Configuration()
        backend.destinationRadius = try integer("TRIP_DESTINATION_RADIUS_M", default: 100, range: 1...100_000)
        backend.dispatch.radius = Double(try integer("DISPATCH_RADIUS_M", default: 5000, range: 1...1_000_000))
        backend.dispatch.offerCount = try integer("DISPATCH_OFFER_COUNT", default: 5, range: 1...100)
        backend.dispatch.useNearbyAPI = try boolean("DISPATCH_USE_NEARBY_API")
        backend.tariff = Tariff(
            currency: value("TARIFF_CURRENCY") ?? "EUR",
            base: try integer("TARIFF_BASE", default: 250, range: 0...1_000_000),
            perKilometre: try integer("TARIFF_PER_KM", default: 120, range: 0...1_000_000),
            perMinute: try integer("TARIFF_PER_MINUTE", default: 30, range: 0...1_000_000),
            minimum: try integer("TARIFF_MINIMUM", default: 500, range: 0...1_000_000)
        )
        backend.webhook = .init(
            secret: value("HYPERTRACK_WEBHOOK_SECRET") ?? self.hyperTrack?.secretKey,
            acceptUnsigned: try boolean("HYPERTRACK_ACCEPT_UNSIGNED_WEBHOOKS")
        )
        self.backend = backend
        self.httpHost = value("HTTP_HOST") ?? "127.0.0.1"
        self.httpPort = try integer("HTTP_PORT", default: 8080, range: 0...65535)
    }
}

extension BackendSettings {
    /// The composition's configuration for `role`.
    /// - Parameters:
    ///   - role: What the process runs.
    ///   - runtime: The worker's settings.
    func composition(role: ServerRole, runtime: TriggerRuntime.Configuration) -> BackendComposition.Configuration {
        var configuration = BackendComposition.Configuration()
        configuration.role = role
        configuration.backend = self.backend
        configuration.runtime = runtime
        configuration.httpHost = self.httpHost
        configuration.httpPort = self.httpPort
        return configuration
    }

    /// HyperTrack for the functions when credentials are set; `nil` otherwise (only the worker needs it).
    func tracking(logger: Logger) throws -> (any TripTracking)? {
        guard let hyperTrack = self.hyperTrack else { return nil }
        let client = try HyperTrackClient(configuration: hyperTrack, httpClient: HTTPClient.shared, logger: logger)
        return HyperTrackTripTracking(client: client, logger: logger)
    }
}
