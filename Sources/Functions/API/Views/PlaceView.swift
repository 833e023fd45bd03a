/// A point with an optional address.
public struct PlaceView: Codable, Sendable, Hashable {
    /// Degrees north.
    public var lat: Double
    /// Degrees east.
    public var lng: Double
    /// The address, when given.
    public var address: String?
}

extension PlaceView {
    /// The view of an order's place.
    /// - Parameter place: The place.
    init(_ place: OrderRow.Place) {
        self.init(lat: place.latitude, lng: place.longitude, address: place.address)
    }
}
