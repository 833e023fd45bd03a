import TriggerRuntime

extension Backend {
    /// Settings of the backend; every field has a documented default.
    public struct Configuration: Sendable {
        /// How rides are priced.
        public var tariff: Tariff
        /// Trips' arrival radius in metres. Default 100 (the reference backend's).
        public var destinationRadius: Int
        /// Who gets offered a new order.
        public var dispatch: Dispatch
        /// How the HyperTrack webhook endpoint authenticates deliveries.
        public var webhook: Webhook
        /// How many orders a page of `GET /v1/orders` holds at most. Default 50.
        public var maximumPageSize: Int
        /// Driver trips: the posted speed limit and the qualification program.
        public var trips: Trips
        /// The workers' NOTIFY channel, which scheduling a timer notifies (the runtime's `channel`). Default
        /// `trigger_runtime`.
        public var channel: String
        /// Sign-in codes, sessions and where codes go.
        public var auth: Auth

        /// The order event log and its streams, and the share links.
        public var events = Events()

        /// The order event log's retention, the streams' longest life, and how long a share link outlives its ride.
        public struct Events: Sendable {
            /// How long events stay in the log (a client resuming from before gets `stream.reset`). Default 24 h.
            public var retention: Duration
            /// The longest a stream stays open (and the largest `timeout`); clients reconnect with `Last-Event-ID`.
            /// Default 1 h.
            public var maximumStreamDuration: Duration
            /// How long after its ride ended (completed or cancelled) a share link works. Default 2 h.
            public var shareTTL: Duration

            /// Creates the settings with the documented defaults.
            public init(
                retention: Duration = .seconds(24 * 3600),
                maximumStreamDuration: Duration = .seconds(3600),
                shareTTL: Duration = .seconds(2 * 3600)
            ) {
                self.retention = retention
                self.maximumStreamDuration = maximumStreamDuration
                self.shareTTL = shareTTL
            }
        }

        /// Dispatch settings: a loop in time of rounds of offers.
        ///
        /// Round 1 offers the order to the `offerCount` nearest dispatchable drivers within `radius`. Each offer is
        /// open for `offerTTL` (an accept up to `acceptGrace` later still wins while the order is `NEW`); when every
        /// offer of a round has expired or been declined, the next round offers it to the next nearest drivers not
        /// offered yet, within a radius `radiusStep` wider (up to `maxRadius`); after rounds that found nobody the
        /// next waits longer (``delay(afterEmptyRounds:)``). An order nobody accepted within `window` of its booking
        /// is cancelled with reason `no_driver_found`.
        public struct Dispatch: Sendable {
            /// First round's search radius in metres. Default 5000.
            public var radius: Double
            /// How much wider each further round searches, in metres. Default 2500.
            public var radiusStep: Double
            /// The widest search, in metres. Default 15000.
            public var maxRadius: Double
            /// How many drivers each round offers the order to. Default 5.
            public var offerCount: Int
            /// How long an offer stays open. Default 20 s.
            public var offerTTL: Duration
            /// How long after its offer expired a driver's accept still wins, while the order is still `NEW`.
            /// Default 10 s.
            ///
            /// An offer's expiry is the server's; the driver sees it through a stream and answers over a phone's
            /// network, so a tap in time on the phone can arrive after it. Refusing such an accept while nobody has
            /// the order helps no one, and under load it loops: the 14th session's chaos run at 20 bookings a
            /// second answered 6,144 accepts 409 against 1 success after a PostgreSQL restart, each expiry started
            /// another round, the rounds' searches slowed the streams further, and 119,695 of 123,540 offers
            /// expired. The next round still runs at the expiry (more drivers, the first accept wins), and an
            /// accept after the grace is refused as expired.
            public var acceptGrace: Duration
            /// The longest wait before the next round after rounds that offered the order to nobody. Default 60 s.
            ///
            /// After a round that found no driver, the next runs after `offerTTL`, then twice that after a second
            /// empty round in a row, doubling up to this (never below `offerTTL`). Drivers who come online near a
            /// waiting order are offered it at once (``OfferWaitingOrders``), so a waiting order does not need to
            /// search often; each search costs PostgreSQL a walk of up to 500 positions. In the 15th session's
            /// chaos run (10,000 drivers, 20 bookings a second, offers living 5 s) the drivers' positions went
            /// stale (webhooks slowed by the load), every order searched every 5 s and found nobody: 20,184
            /// searches in six minutes at 64 ms each, PostgreSQL's largest cost by thirteen times, which slowed
            /// the webhooks further; 5,097 orders were waiting after 4.2 rounds on average.
            public var emptyRoundMaxDelay: Duration
            /// How long after booking an order nobody accepted is cancelled (`no_driver_found`). Default 5 minutes.
            public var window: Duration
            /// Positions older than this do not count: such a driver is not offered anything. Default 2 minutes.
            public var maxPositionAge: Duration
            /// Use HyperTrack's Nearby API instead of the local position index. Default `false`.
            public var useNearbyAPI: Bool
            /// How long a Nearby search may poll. Default 10 s.
            public var nearbyTimeout: Duration

            /// Creates dispatch settings with the documented defaults.
            public init(
                radius: Double = 5000,
                radiusStep: Double = 2500,
                maxRadius: Double = 15000,
                offerCount: Int = 5,
                offerTTL: Duration = DriverSearch.defaultOfferTTL,
                acceptGrace: Duration = .seconds(10),
                emptyRoundMaxDelay: Duration = .seconds(60),
                window: Duration = .seconds(300),
                maxPositionAge: Duration = DriverSearch.defaultMaxPositionAge,
                useNearbyAPI: Bool = false,
                nearbyTimeout: Duration = .seconds(10)
            ) {
                self.radius = radius
                self.radiusStep = radiusStep
                self.maxRadius = max(maxRadius, radius)
                self.offerCount = offerCount
                self.offerTTL = offerTTL
                self.acceptGrace = acceptGrace
                self.emptyRoundMaxDelay = emptyRoundMaxDelay
                self.window = window
                self.maxPositionAge = maxPositionAge
                self.useNearbyAPI = useNearbyAPI
                self.nearbyTimeout = nearbyTimeout
            }

            /// How long after a round that offered nobody the next one runs, when the last `emptyRounds` rounds in a
            /// row (from 1) offered nobody: `offerTTL`, doubling with each further empty round, at most
            /// `emptyRoundMaxDelay` (never below `offerTTL`).
            public func delay(afterEmptyRounds emptyRounds: Int) -> Duration {
                let cap = max(self.emptyRoundMaxDelay, self.offerTTL)
                var delay = self.offerTTL
                for _ in 1..<max(emptyRounds, 1) where delay < cap { delay *= 2 }
                return min(delay, cap)
            }

            /// The search radius of round `round` (from 1).
            public func radius(ofRound round: Int) -> Double {
                min(self.radius + Double(max(round - 1, 0)) * self.radiusStep, self.maxRadius)
            }
        }

        /// How the webhook endpoint authenticates deliveries, and how long the inbox keeps them.
        ///
        /// HyperTrack does not document how `x-hypertrack-signature` is computed (hypertrack-api.md §6.4) and treats
        /// a 4xx as delivered, so a wrong guess would lose every event. The primary check is therefore one the
        /// operator controls: a secret in the webhook URL (`/v1/hypertrack/webhooks/{secret}`, pasted into
        /// HyperTrack's dashboard), with up to two secrets valid at once for rotation. The HMAC check of the body is
        /// one pluggable scheme on top, off unless a `secret` is configured. With neither configured (and not
        /// `acceptUnsigned`), every delivery is refused.
        public struct Webhook: Sendable {
            /// The secrets accepted in the webhook URL's last segment (two during a rotation). Compared in constant
            /// time. Empty: the path carries no secret (`/v1/hypertrack/webhooks`).
            public var pathSecrets: [String]
            /// The key of `x-hypertrack-signature` (hex HMAC-SHA256 of the raw body); `nil` turns the signature
            /// check off.
            public var secret: String?
            /// Accept deliveries without a valid path secret or signature. Never in production; logged loudly.
            public var acceptUnsigned: Bool
            /// Confirm AWS SNS `SubscriptionConfirmation` deliveries by fetching their `SubscribeURL` (only an https
            /// URL on an `amazonaws.com` host). Off: the URL is logged for the operator to open.
            public var confirmSubscriptions: Bool
            /// How long processed location events and rejected events stay in the inbox. Default 7 days.
            public var retention: Duration
            /// Where a delivery's events are applied. Default ``Apply/request``.
            public var apply: Apply

            /// Where a delivery's events are applied (its device statuses and positions, its inbox rows).
            ///
            /// Measured in the 10,000-driver city (BENCHMARKS.md, 27th, 28th and 34th sessions), whose emulator, as
            /// HyperTrack may, keeps one delivery in flight: applied in the worker, the acknowledgement is about
            /// half (p50 37 ms, p99 0.4 s against 80 ms and 0.6 s), the city runs faster (1,540 location events a
            /// second against 1,040-1,180), and the rides' functions then lag by seconds on this 2-core machine
            /// (arrival → `REACHED_*` p99 12 s against 0.8-3 s). So the request applies them unless told otherwise.
            public enum Apply: String, Sendable, CaseIterable {
                /// In the request, before the 202: the acknowledgement is the whole intake.
                case request
                /// By ``ApplyWebhookDelivery`` in the worker: the 202 is the delivery stored as received
                /// (``M0031WebhookReceipts``).
                case worker
            }

            /// Creates webhook settings.
            public init(
                pathSecrets: [String] = [],
                secret: String? = nil,
                acceptUnsigned: Bool = false,
                confirmSubscriptions: Bool = false,
                retention: Duration = .seconds(7 * 86_400),
                apply: Apply = .request
            ) {
                self.pathSecrets = pathSecrets
                self.secret = secret
                self.acceptUnsigned = acceptUnsigned
                self.confirmSubscriptions = confirmSubscriptions
                self.retention = retention
                self.apply = apply
            }
        }

        /// Creates a configuration with the documented defaults.
        public init(
            tariff: Tariff = Tariff(),
            destinationRadius: Int = 100,
            dispatch: Dispatch = Dispatch(),
            webhook: Webhook = Webhook(),
            maximumPageSize: Int = 50,
            channel: String = TriggerRuntime.Configuration.defaultChannel,
            trips: Trips = Trips(),
            auth: Auth = Auth()
        ) {
            self.auth = auth
            self.tariff = tariff
            self.destinationRadius = destinationRadius
            self.dispatch = dispatch
            self.webhook = webhook
            self.maximumPageSize = maximumPageSize
            self.trips = trips
            self.channel = channel
        }
    }
}
