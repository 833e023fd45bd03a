extension Setting {
    static let hyperTrackAccountID = Setting(
        "hypertrack.accountId", "HYPERTRACK_ACCOUNT_ID", group: .backend,
        "HyperTrack account id; required by roles that run the worker, `--api-only` needs it only if set at all."
    )
    static let hyperTrackSecretKey = Setting(
        "hypertrack.secretKey", "HYPERTRACK_SECRET_KEY", secret: true, group: .backend,
        "HyperTrack secret key; required with the account id."
    )
    static let hyperTrackBaseURL = Setting(
        "hypertrack.baseUrl", "HYPERTRACK_BASE_URL", default: .value("https://v3.api.hypertrack.com"),
        group: .backend, "HyperTrack's API; the emulator's URL in tests and on laptops."
    )
    static let hyperTrackTimeout = Setting(
        "hypertrack.timeoutMs", "HYPERTRACK_TIMEOUT_MS", default: .value("30000"), .integer(100...300_000),
        group: .backend, "Time limit of one HyperTrack request attempt in milliseconds.",
        detail: "A call that times out fails like a 5xx and its function is retried; `simulate --chaos` lowers it "
            + "so that emulated timeouts cost seconds, not half-minutes."
    )
    static let hyperTrackWebhookPathSecrets = Setting(
        "hypertrack.webhookPathSecrets", "HYPERTRACK_WEBHOOK_PATH_SECRETS", secret: true, group: .backend,
        "Secrets accepted as the webhook URL's last segment, comma-separated (two during a rotation).",
        detail: "Paste `https://<api>/v1/hypertrack/webhooks/<secret>` into HyperTrack's dashboard. HyperTrack's "
            + "signature scheme is undocumented, so this is the check that cannot be a wrong guess. To rotate: add "
            + "the new secret beside the old, change the dashboard's URL, then remove the old one."
    )
    static let hyperTrackWebhookSecret = Setting(
        "hypertrack.webhookSecret", "HYPERTRACK_WEBHOOK_SECRET", secret: true, group: .backend,
        "HMAC-SHA256 key of `x-hypertrack-signature`; unset turns the signature check off.",
        detail: "With neither this nor path secrets set, every webhook delivery is refused (401), and `serve` says so "
            + "at startup."
    )
    static let hyperTrackAcceptUnsigned = Setting(
        "hypertrack.acceptUnsignedWebhooks", "HYPERTRACK_ACCEPT_UNSIGNED_WEBHOOKS", default: .value("false"),
        .boolean, group: .backend, "Accept webhooks without a valid path secret or signature (development only)."
    )
    static let hyperTrackConfirmSubscriptions = Setting(
        "hypertrack.confirmSubscriptions", "HYPERTRACK_CONFIRM_SUBSCRIPTIONS", default: .value("false"), .boolean,
        group: .backend,
        "Confirm AWS SNS subscription requests (an https `amazonaws.com` SubscribeURL); off: the URL is logged."
    )
    static let webhookApply = Setting(
        "webhooks.apply", "WEBHOOKS_APPLY", default: .value("request"), .choice(["request", "worker"]),
        group: .backend,
        "Where a webhook delivery's events are applied: in the request before its 202, or by the worker after it.",
        detail: "`worker` answers HyperTrack sooner (the 202 is the delivery's body stored as received) and moves the "
            + "rest to the worker's `applyWebhookDelivery`, which decodes it, applies its events and records the "
            + "rejected ones; the faster intake also gives the rides' functions more work a second: give the worker "
            + "more lanes (`WORKER_CONCURRENCY` 16, as the k8s manifests set it; with 8 they fell seconds behind in "
            + "the city benchmark). BENCHMARKS.md measures both. With `worker`, roll the workers before the API "
            + "(see Upgrading)."
    )
    static let webhookRetentionDays = Setting(
        "webhooks.retentionDays", "WEBHOOKS_RETENTION_DAYS", default: .value("7"), .integer(1...3650),
        group: .backend, "Days processed location events (those of drivers on a ride: an idle driver's are applied, not stored) and rejected events stay in the webhook inbox."
    )
    static let httpHost = Setting(
        "http.host", "HTTP_HOST", default: .value("127.0.0.1"), group: .backend,
        "Listen address of the HTTP API; set `0.0.0.0` in containers."
    )
    static let httpPort = Setting(
        "http.port", "HTTP_PORT", default: .value("8080"), .integer(0...65535), group: .backend,
        "Port of the HTTP API; 0 picks a free one (logged as `http.port` in the \"HTTP listening\" line)."
    )
    static let metricsPort = Setting(
        "metrics.port", "METRICS_PORT", default: .value("9464"), group: .backend,
        "Port of `/metrics` (Prometheus), apart from the API's; 0 picks a free one; `main` serves it on HTTP_PORT.",
        detail: "On its own port `/metrics` is never behind the API's public ingress (scrape it inside the cluster); "
            + "the port is logged as `metrics.port` in the \"metrics listening\" line. With `main` it is served on "
            + "the API's port and requires an operator key (`ridesharing operators create NAME`)."
    )
    static let tripDestinationRadius = Setting(
        "trip.destinationRadiusM", "TRIP_DESTINATION_RADIUS_M", default: .value("100"), .integer(1...100_000),
        group: .backend, "Trip destination geofence in metres."
    )
    static let dispatchRadius = Setting(
        "dispatch.radiusM", "DISPATCH_RADIUS_M", default: .value("5000"), .integer(1...1_000_000), group: .backend,
        "The first dispatch round offers an order to drivers within this many metres."
    )
    static let dispatchRadiusStep = Setting(
        "dispatch.radiusStepM", "DISPATCH_RADIUS_STEP_M", default: .value("2500"), .integer(0...1_000_000),
        group: .backend, "Each further round searches this many metres wider."
    )
    static let dispatchMaxRadius = Setting(
        "dispatch.maxRadiusM", "DISPATCH_MAX_RADIUS_M", default: .value("15000"), .integer(1...1_000_000),
        group: .backend, "The widest round's radius in metres (and how far a driver who comes online is offered waiting orders)."
    )
    static let dispatchOfferCount = Setting(
        "dispatch.offerCount", "DISPATCH_OFFER_COUNT", default: .value("5"), .integer(1...100), group: .backend,
        "Drivers offered an order in each round."
    )
    static let dispatchOfferTTL = Setting(
        "dispatch.offerTtlS", "DISPATCH_OFFER_TTL_S", default: .value("20"), .integer(1...3600), group: .backend,
        "Seconds an offer stays open; when all of a round's offers expired or were declined, the next round runs."
    )
    static let dispatchAcceptGrace = Setting(
        "dispatch.acceptGraceS", "DISPATCH_ACCEPT_GRACE_S", default: .value("10"), .integer(0...3600),
        group: .backend,
        "Seconds after an offer expired that its driver's accept still wins while the order is `NEW` (a tap in time on a phone arrives late)."
    )
    static let dispatchEmptyRoundMaxDelay = Setting(
        "dispatch.emptyRoundMaxDelayS", "DISPATCH_EMPTY_ROUND_MAX_DELAY_S", default: .value("60"),
        .integer(1...3600), group: .backend,
        "After rounds that found no driver, the next waits the offer lifetime, doubling with each empty round up to this many seconds."
    )
    static let dispatchWindow = Setting(
        "dispatch.windowS", "DISPATCH_WINDOW_S", default: .value("300"), .integer(1...86_400), group: .backend,
        "Seconds after booking an order nobody accepted is cancelled with reason `no_driver_found`."
    )
    static let dispatchMaxPositionAge = Setting(
        "dispatch.maxPositionAgeS", "DISPATCH_MAX_POSITION_AGE_S", default: .value("120"), .integer(1...86_400),
        group: .backend, "A driver whose last position is older than this many seconds is not offered orders.",
        detail: "A still driver's reports of the place their position already holds rewrite it at most every quarter "
            + "of this (30 s of 120): the intake skips the rest (BENCHMARKS.md, 52nd session). A driver whose phone "
            + "stops reporting while still leaves dispatch three quarters of this to this after their last report."
    )
    static let dispatchUseNearbyAPI = Setting(
        "dispatch.useNearbyApi", "DISPATCH_USE_NEARBY_API", default: .value("false"), .boolean, group: .backend,
        "Ask HyperTrack's Nearby API instead of the last known positions."
    )
    static let tariffCurrency = Setting(
        "tariff.currency", "TARIFF_CURRENCY", default: .value("EUR"), group: .backend, "Currency of fares."
    )
    static let tariffBase = Setting(
        "tariff.base", "TARIFF_BASE", default: .value("250"), .integer(0...1_000_000), group: .backend,
        "Base fare in minor units."
    )
    static let tariffPerKilometre = Setting(
        "tariff.perKm", "TARIFF_PER_KM", default: .value("120"), .integer(0...1_000_000), group: .backend,
        "Fare per kilometre in minor units."
    )
    static let tariffPerMinute = Setting(
        "tariff.perMinute", "TARIFF_PER_MINUTE", default: .value("30"), .integer(0...1_000_000), group: .backend,
        "Fare per minute in minor units."
    )
    static let tariffMinimum = Setting(
        "tariff.minimum", "TARIFF_MINIMUM", default: .value("500"), .integer(0...1_000_000), group: .backend,
        "Minimum fare in minor units."
    )

    static let tripsSpeedLimit = Setting(
        "trips.speedLimitKmh", "TRIPS_SPEED_LIMIT_KMH", default: .value("50"), .integer(5...300), group: .backend,
        "Posted limit in km/h that driver trips' speeding is measured against where a location carries none "
            + "(HyperTrack gives none; a location's `posted_limit_kmh`, which the local emulator sends, wins)."
    )
    static let programMinimumTrips = Setting(
        "program.minimumTrips", "PROGRAM_MINIMUM_TRIPS", default: .value("10"), .integer(1...10_000),
        group: .backend, "Scored trips a driver needs in the window to qualify for the insurance program."
    )
    static let programMinimumScore = Setting(
        "program.minimumAverageScore", "PROGRAM_MINIMUM_AVERAGE_SCORE", default: .value("80"), .integer(0...100),
        group: .backend, "Average driving score (0-100) over those trips needed to qualify."
    )
    static let programWindowDays = Setting(
        "program.windowDays", "PROGRAM_WINDOW_DAYS", default: .value("30"), .integer(1...3650), group: .backend,
        "Days of trips the qualification looks at."
    )
    static let authAccessTokenTTL = Setting(
        "auth.accessTokenTtlS", "AUTH_ACCESS_TOKEN_TTL_S", default: .value("3600"), .integer(60...86_400),
        group: .backend, "Seconds an access token works; the app refreshes it with its refresh token.",
        detail: "Tokens are opaque and stored hashed, so signing out or revoking a session stops its access tokens "
            + "at once; the lifetime only bounds a token copied off a phone that nobody revoked."
    )
    static let authRefreshTokenTTL = Setting(
        "auth.refreshTokenTtlDays", "AUTH_REFRESH_TOKEN_TTL_DAYS", default: .value("30"), .integer(1...365),
        group: .backend, "Days a session lasts before its user signs in with a code again.",
        detail: "Refresh tokens rotate on every use; presenting a used one revokes the whole session."
    )
    static let authCodeTTL = Setting(
        "auth.codeTtlS", "AUTH_CODE_TTL_S", default: .value("300"), .integer(30...3600), group: .backend,
        "Seconds a sign-in code works."
    )
    static let authCodeMaxAttempts = Setting(
        "auth.codeMaxAttempts", "AUTH_CODE_MAX_ATTEMPTS", default: .value("5"), .integer(1...20), group: .backend,
        "Tries per sign-in code; the next try is refused even with the right code."
    )
    static let authCodesPerHour = Setting(
        "auth.codesPerPhonePerHour", "AUTH_CODES_PER_PHONE_PER_HOUR", default: .value("5"), .integer(1...100),
        group: .backend, "Sign-in codes a phone may be sent per hour (429 with Retry-After beyond).",
        detail: "With the defaults an attacker gets at most 25 guesses an hour at a phone's 10⁶ codes."
    )
    static let authCodeWebhookURL = Setting(
        "auth.codeWebhookUrl", "AUTH_CODE_WEBHOOK_URL", group: .backend,
        "Where sign-in codes are posted (an SMS provider's webhook); unset: `serve` refuses code requests (503).",
        detail: "The body is JSON `{phone, role, code, text, expires_at}`, signed in `x-ridesharing-signature: "
            + "t=<unix>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>`. `ridesharing local` keeps codes in its "
            + "outbox instead (logged, and at `GET /local/auth/codes/{phone}`)."
    )
    static let authCodeWebhookSecret = Setting(
        "auth.codeWebhookSecret", "AUTH_CODE_WEBHOOK_SECRET", secret: true, group: .backend,
        "HMAC key of the code webhook's signature; required with its URL."
    )

    static let eventsRetentionHours = Setting(
        "events.retentionHours", "EVENTS_RETENTION_HOURS", default: .value("24"), .integer(1...8760), group: .backend,
        "Hours order events stay in the log streams resume from; a client resuming from older gets `stream.reset`."
    )
    static let eventsMaxStreamSeconds = Setting(
        "events.maxStreamS", "EVENTS_MAX_STREAM_S", default: .value("3600"), .integer(1...86_400), group: .backend,
        "Seconds an event stream stays open at most (and the largest `timeout`); clients reconnect with Last-Event-ID."
    )
    static let shareTTLMinutes = Setting(
        "share.ttlMinutes", "SHARE_TTL_MINUTES", default: .value("120"), .integer(1...43_200), group: .backend,
        "Minutes after its ride ends (completed or cancelled) that a share link keeps working."
    )

    static let backend: [Setting] = [
        .hyperTrackAccountID, .hyperTrackSecretKey, .hyperTrackBaseURL, .hyperTrackTimeout,
        .hyperTrackWebhookPathSecrets, .hyperTrackWebhookSecret, .hyperTrackAcceptUnsigned,
        .hyperTrackConfirmSubscriptions, .webhookApply, .webhookRetentionDays,
        .httpHost, .httpPort, .metricsPort, .tripDestinationRadius, .dispatchRadius, .dispatchRadiusStep,
        .dispatchMaxRadius,
        .dispatchOfferCount, .dispatchOfferTTL, .dispatchAcceptGrace,
        .dispatchEmptyRoundMaxDelay, .dispatchWindow, .dispatchMaxPositionAge, .dispatchUseNearbyAPI,
        .tariffCurrency, .tariffBase, .tariffPerKilometre, .tariffPerMinute, .tariffMinimum, .tripsSpeedLimit,
        .programMinimumTrips, .programMinimumScore, .programWindowDays, .authAccessTokenTTL, .authRefreshTokenTTL,
        .authCodeTTL, .authCodeMaxAttempts, .authCodesPerHour, .authCodeWebhookURL, .authCodeWebhookSecret,
        .eventsRetentionHours, .eventsMaxStreamSeconds, .shareTTLMinutes,
    ]
}
