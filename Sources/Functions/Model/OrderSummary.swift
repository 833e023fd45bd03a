/// An order's summary once its ride is complete: each leg, the totals, and the fare.
public struct OrderSummary: Sendable, Hashable, Codable {
    /// The driver's trip to the pickup, when its summary arrived.
    public var pickup: LegTotals?
    /// The ride.
    public var dropoff: LegTotals
    /// Metres over both legs.
    public var totalDistance: Double
    /// Seconds over both legs.
    public var totalDuration: Double
    /// What the rider pays.
    public var fare: Fare

    /// One leg's distance and duration.
    public struct LegTotals: Sendable, Hashable, Codable {
        /// Metres.
        public var distance: Double
        /// Seconds.
        public var duration: Double

        /// Creates leg totals.
        public init(distance: Double, duration: Double) {
            self.distance = distance
            self.duration = duration
        }
    }

    /// A price.
    public struct Fare: Sendable, Hashable, Codable {
        /// Minor units (cents).
        public var amount: Int
        /// ISO 4217 code.
        public var currency: String

        /// Creates a fare.
        public init(amount: Int, currency: String) {
            self.amount = amount
            self.currency = currency
        }
    }

    /// Builds the summary from the legs' recorded summaries; the fare is charged on the ride (dropoff leg) only.
    /// - Parameters:
    ///   - pickup: The pickup leg's summary, if it arrived.
    ///   - dropoff: The dropoff leg's summary.
    ///   - tariff: The tariff.
    public init(pickup: LegSummary?, dropoff: LegSummary, tariff: Tariff) {
        self.pickup = pickup.map { LegTotals(distance: $0.distance, duration: $0.duration) }
        self.dropoff = LegTotals(distance: dropoff.distance, duration: dropoff.duration)
        self.totalDistance = (pickup?.distance ?? 0) + dropoff.distance
        self.totalDuration = (pickup?.duration ?? 0) + dropoff.duration
        self.fare = Fare(
            amount: tariff.fare(distance: dropoff.distance, duration: dropoff.duration),
            currency: tariff.currency
        )
    }

    private enum CodingKeys: String, CodingKey {
        case pickup, dropoff, fare
        case totalDistance = "total_distance"
        case totalDuration = "total_duration"
    }
}
