import Foundation
import HyperTrackAPI

extension LocalDemo {
    /// A place on the map.
    public struct Place: Sendable, Hashable {
        public var name: String
        public var latitude: Double
        public var longitude: Double

        public init(_ name: String, latitude: Double, longitude: Double) {
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
        }

        /// Great-circle distance in metres.
        func distance(to other: Place) -> Double {
            let radians = Double.pi / 180
            let dLat = (other.latitude - self.latitude) * radians
            let dLng = (other.longitude - self.longitude) * radians
            let a = sin(dLat / 2) * sin(dLat / 2)
                + cos(self.latitude * radians) * cos(other.latitude * radians) * sin(dLng / 2) * sin(dLng / 2)
            return 6_371_000 * 2 * atan2(sqrt(a), sqrt(1 - a))
        }
    }

    /// A driver of the demo: a name, the phone's device id and where the phone is.
    public struct Driver: Sendable, Hashable {
        public var name: String
        public var deviceID: String
        public var position: Place

        public init(name: String, deviceID: String, position: Place) {
            self.name = name
            self.deviceID = deviceID
            self.position = position
        }
    }

    /// The ride to play: where, who, and how the clock moves.
    public struct Configuration: Sendable {
        /// Alexanderplatz to the Brandenburger Tor, Berlin.
        public var pickup = Place("Alexanderplatz", latitude: 52.52, longitude: 13.405)
        public var dropoff = Place("Brandenburger Tor", latitude: 52.5163, longitude: 13.3777)
        public var drivers: [Driver] = [
            Driver(name: "Dana", deviceID: "demo-dana", position: Place("Karl-Liebknecht-Str.", latitude: 52.523, longitude: 13.405)),
            Driver(name: "Emil", deviceID: "demo-emil", position: Place("Hackescher Markt", latitude: 52.5225, longitude: 13.402)),
            Driver(name: "Fay", deviceID: "demo-fay", position: Place("Jannowitzbrücke", latitude: 52.5142, longitude: 13.418)),
        ]
        /// Emulated seconds per step when the emulator's clock is manual; `nil` when it runs by itself (scaled).
        public var stepSeconds: Double? = 30
        /// Emulated seconds a leg may take before the demo gives up.
        public var legLimit: Double = 3 * 3600
        /// Real time the whole demo may take.
        public var deadline: Duration = .seconds(180)

        /// The Berlin ride above, on a stepped clock.
        public init() {}
    }

    /// What happened: every status change with the emulator's time, and the outcome.
    public struct Result: Sendable {
        public var orderID: String
        /// The driver who accepted (the nearest).
        public var driverDeviceID: String
        /// `(status, emulated time)` in the order they were seen.
        public var statuses: [(status: String, at: Date)]
        /// The pickup and drop-off trips' share URLs.
        public var shareURLs: [String]
        /// The order's final summary (`pickup`, `dropoff`, `fare`).
        public var summary: JSONValue
        /// The fare in minor units and its currency.
        public var fare: Int
        public var currency: String
    }
}
