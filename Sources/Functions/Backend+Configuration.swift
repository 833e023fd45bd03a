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

        /// Dispatch settings.
        public struct Dispatch: Sendable {
            /// Search radius in metres. Default 5000.
            public var radius: Double
            /// How many of the nearest drivers get the offer. Default 5.
            public var offerCount: Int
            /// Use HyperTrack's Nearby API instead of the local position index. Default `false`.
            public var useNearbyAPI: Bool
            /// How long a Nearby search may poll. Default 10 s.
            public var nearbyTimeout: Duration

            /// Creates dispatch settings with the documented defaults.
            public init(
                radius: Double = 5000,
                offerCount: Int = 5,
                useNearbyAPI: Bool = false,
                nearbyTimeout: Duration = .seconds(10)
            ) {
                self.radius = radius
                self.offerCount = offerCount
                self.useNearbyAPI = useNearbyAPI
                self.nearbyTimeout = nearbyTimeout
            }
        }

        /// Webhook endpoint settings.
        public struct Webhook: Sendable {
            /// The key of `x-hypertrack-signature` (hex HMAC-SHA256 of the raw body). `nil` refuses every delivery
            /// unless `acceptUnsigned` is set.
            public var secret: String?
            /// Accept deliveries without a valid signature. Never in production; logged loudly at startup.
            public var acceptUnsigned: Bool

            /// Creates webhook settings.
            public init(secret: String? = nil, acceptUnsigned: Bool = false) {
                self.secret = secret
                self.acceptUnsigned = acceptUnsigned
            }
        }

        /// Creates a configuration with the documented defaults.
        public init(
            tariff: Tariff = Tariff(),
            destinationRadius: Int = 100,
            dispatch: Dispatch = Dispatch(),
            webhook: Webhook = Webhook(),
            maximumPageSize: Int = 50,
            trips: Trips = Trips()
        ) {
            self.tariff = tariff
            self.destinationRadius = destinationRadius
            self.dispatch = dispatch
            self.webhook = webhook
            self.maximumPageSize = maximumPageSize
            self.trips = trips
        }
    }
}
