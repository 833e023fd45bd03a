/// A point with an optional address.
public struct PlaceView: Codable, Sendable, Hashable {
    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// The address, when given.
    public var address: String?
}
