import AsyncHTTPClient
import BackendServer
import Foundation
import Functions
import HyperTrackAPI
import Logging
import TriggerRuntime

/// The backend's settings (HyperTrack, the HTTP API, pricing, dispatch and webhooks), read from the ``Setting``
/// declarations through a ``SettingsReader``; the HyperTrack client gets a plain configuration built here.
struct BackendSettings: Sendable {
    /// HyperTrack's client settings; `nil` when no credentials are set.
    var hyperTrack: HyperTrackClient.Configuration?
    /// The functions' and API's settings.
    var backend: Functions.Backend.Configuration
    /// Where the HTTP API listens.
    var httpHost: String
    var httpPort: Int
    /// Where `/metrics` is served; `nil`: on the API's port, behind an operator key.
    var metricsPort: Int?

    /// The variables read here, with their defaults, for `--help`.
    static var variables: String { Setting.environmentHelp(.backend) }

    /// Reads the settings; throws `Configuration.Invalid` naming the variable that is wrong.
    /// - Parameters:
    ///   - settings: The flags, environment and settings file.
    ///   - requireHyperTrack: Fail when HyperTrack credentials are missing (the worker and API need them).
    init(_ settings: SettingsReader, requireHyperTrack: Bool) throws {
        let accountID = try settings.optionalString(.hyperTrackAccountID)
        let secretKey = try settings.optionalString(.hyperTrackSecretKey)
        if accountID != nil || secretKey != nil || requireHyperTrack {
            guard let accountID, let secretKey else {
                let missing = accountID == nil ? Setting.hyperTrackAccountID : Setting.hyperTrackSecretKey
                throw Configuration.Invalid(
                    description: "\(missing) is not set; the worker and the API call HyperTrack (for a laptop, "
                        + "`ridesharing local` runs the HyperTrack emulator and sets these)"
                )
            }
            self.hyperTrack = HyperTrackClient.Configuration(
                baseURL: try settings.string(.hyperTrackBaseURL),
                accountID: accountID,
                secretKey: secretKey,
                timeout: .milliseconds(try settings.integer(.hyperTrackTimeout))
            )
        } else {
            self.hyperTrack = nil
        }
        var backend = Functions.Backend.Configuration()
        backend.destinationRadius = try settings.integer(.tripDestinationRadius)
        backend.dispatch.radius = Double(try settings.integer(.dispatchRadius))
        backend.dispatch.radiusStep = Double(try settings.integer(.dispatchRadiusStep))
        backend.dispatch.maxRadius = max(Double(try settings.integer(.dispatchMaxRadius)), backend.dispatch.radius)
        backend.dispatch.offerCount = try settings.integer(.dispatchOfferCount)
        backend.dispatch.offerTTL = .seconds(try settings.integer(.dispatchOfferTTL))
        backend.dispatch.acceptGrace = .seconds(try settings.integer(.dispatchAcceptGrace))
        backend.dispatch.emptyRoundMaxDelay = .seconds(try settings.integer(.dispatchEmptyRoundMaxDelay))
        backend.dispatch.window = .seconds(try settings.integer(.dispatchWindow))
        backend.dispatch.maxPositionAge = .seconds(try settings.integer(.dispatchMaxPositionAge))
        backend.dispatch.useNearbyAPI = try settings.boolean(.dispatchUseNearbyAPI)
        backend.tariff = Tariff(
            currency: try settings.string(.tariffCurrency),
            base: try settings.integer(.tariffBase),
            perKilometre: try settings.integer(.tariffPerKilometre),
            perMinute: try settings.integer(.tariffPerMinute),
            minimum: try settings.integer(.tariffMinimum)
        )
        backend.trips = Functions.Backend.Configuration.Trips(
            speedLimit: Double(try settings.integer(.tripsSpeedLimit)),
            program: .init(
                minimumTrips: try settings.integer(.programMinimumTrips),
                minimumAverageScore: try settings.integer(.programMinimumScore),
                windowDays: try settings.integer(.programWindowDays)
            )
        )
        backend.webhook = .init(
            pathSecrets: (try settings.optionalString(.hyperTrackWebhookPathSecrets) ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
            secret: try settings.optionalString(.hyperTrackWebhookSecret).flatMap { $0.isEmpty ? nil : $0 },
            acceptUnsigned: try settings.boolean(.hyperTrackAcceptUnsigned),
            confirmSubscriptions: try settings.boolean(.hyperTrackConfirmSubscriptions),
            retention: .seconds(86_400 * (try settings.integer(.webhookRetentionDays))),
            apply: Backend.Configuration.Webhook.Apply(rawValue: try settings.choice(.webhookApply)) ?? .request
        )
        backend.auth = try Self.auth(settings)
        backend.events = .init(
            retention: .seconds(3600 * (try settings.integer(.eventsRetentionHours))),
            maximumStreamDuration: .seconds(try settings.integer(.eventsMaxStreamSeconds)),
            shareTTL: .seconds(60 * (try settings.integer(.shareTTLMinutes)))
        )
        self.backend = backend
        self.httpHost = try settings.string(.httpHost)
        self.httpPort = try settings.integer(.httpPort)
        let metrics = try settings.string(.metricsPort).lowercased()
        if metrics == "main" {
            self.metricsPort = nil
        } else {
            guard let port = Int(metrics), (0...65535).contains(port) else {
                throw Configuration.Invalid(
                    description: "\(Setting.metricsPort) must be a port (0...65535) or main, not \(metrics)"
                )
            }
            self.metricsPort = port
        }
    }
}

extension BackendSettings {
    /// Sign-in settings; the code delivery is the webhook sender when its URL is set (nothing otherwise: `serve`
    /// says so at start and refuses code requests).
    static func auth(_ settings: SettingsReader) throws -> Functions.Backend.Configuration.Auth {
        var auth = Functions.Backend.Configuration.Auth(
            accessTokenTTL: .seconds(try settings.integer(.authAccessTokenTTL)),
            refreshTokenTTL: .seconds(86_400 * (try settings.integer(.authRefreshTokenTTL))),
            codeTTL: .seconds(try settings.integer(.authCodeTTL)),
            codeMaxAttempts: try settings.integer(.authCodeMaxAttempts),
            codesPerHour: try settings.integer(.authCodesPerHour)
        )
        let url = try settings.optionalString(.authCodeWebhookURL).flatMap { $0.isEmpty ? nil : $0 }
        let secret = try settings.optionalString(.authCodeWebhookSecret).flatMap { $0.isEmpty ? nil : $0 }
        if let url {
            guard let secret else {
                throw Configuration.Invalid(
                    description:
                        "\(Setting.authCodeWebhookSecret) is not set; it signs every code sent to \(Setting.authCodeWebhookURL)"
                )
            }
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil
            else {
                throw Configuration.Invalid(description: "\(Setting.authCodeWebhookURL) must be an http(s) URL")
            }
            auth.delivery = WebhookCodeDelivery(url: url, secret: secret)
        }
        return auth
    }

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
        configuration.metricsPort = self.metricsPort
        return configuration
    }

    /// HyperTrack for the functions when credentials are set; `nil` otherwise (only the worker needs it).
    func tracking(logger: Logger) throws -> (any TripTracking)? {
        guard let hyperTrack = self.hyperTrack else { return nil }
        let client = try HyperTrackClient(configuration: hyperTrack, httpClient: HTTPClient.shared, logger: logger)
        return HyperTrackTripTracking(client: client, logger: logger)
    }
}
