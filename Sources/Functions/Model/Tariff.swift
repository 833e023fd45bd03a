/// How a ride is priced: base + per km + per minute, never below a minimum. Amounts are in minor units (cents).
public struct Tariff: Sendable, Hashable, Codable {
    /// ISO 4217 currency code.
    public var currency: String
    /// Charged for every ride, in minor units.
    public var base: Int
    /// Per kilometre of the ride (the dropoff leg), in minor units.
    public var perKilometre: Int
    /// Per minute of the ride (the dropoff leg), in minor units.
    public var perMinute: Int
    /// The smallest fare, in minor units.
    public var minimum: Int

    /// Creates a tariff; the defaults are 2.50 + 1.20/km + 0.30/min, at least 5.00 EUR.
    public init(
        currency: String = "EUR",
        base: Int = 250,
        perKilometre: Int = 120,
        perMinute: Int = 30,
        minimum: Int = 500
    ) {
        self.currency = currency
        self.base = base
        self.perKilometre = perKilometre
        self.perMinute = perMinute
        self.minimum = minimum
    }

    /// The fare in minor units for a ride of `distance` metres and `duration` seconds, rounded to the nearest unit.
    public func fare(distance: Double, duration: Double) -> Int {
        let raw =
            Double(self.base) + Double(self.perKilometre) * max(0, distance) / 1000 + Double(self.perMinute)
            * max(0, duration) / 60
        return max(self.minimum, Int(raw.rounded()))
    }
}
