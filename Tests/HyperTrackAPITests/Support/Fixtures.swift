import Foundation
import HyperTrackAPI

/// Wire JSON written from the API notes (hypertrack-api.md), field names typed by hand.
enum Fixtures {
    static func setting(_ value: JSONValue, _ key: String, _ newValue: JSONValue) -> JSONValue {
        var object = value.objectValue ?? [:]
        object[key] = newValue
        return .object(object)
    }

    static func array(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { return items }
        return []
    }

    /// Great-circle distance in metres (haversine), written here independently of the client's.
    static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let rad = Double.pi / 180
        let a = pow(sin((lat2 - lat1) * rad / 2), 2) + cos(lat1 * rad) * cos(lat2 * rad) * pow(sin((lon2 - lon1) * rad / 2), 2)
        return 6_371_000 * 2 * atan2(sqrt(a), sqrt(1 - a))
    }

    static func point(_ longitude: Double, _ latitude: Double) -> JSONValue {
        ["type": "Point", "coordinates": [.number(longitude), .number(latitude)]]
    }

    static func trip(id: String, deviceID: String, request: [String: JSONValue], baseGeofenceID: String) -> JSONValue {
        var trip: [String: JSONValue] = [
            "trip_id": .string(id), "device_id": .string(deviceID),
            "started_at": "2020-04-20T00:57:33.484361Z", "completed_at": nil, "status": "active",
            "views": [
                "embed_url": .string("https://embed.hypertrack.com/trips/\(id)?publishable_key=pk"),
                "share_url": "https://trck.at/abcdefg",
            ],
            "device_info": ["os_version": "13.3.1", "sdk_version": "4.0.2"],
            "metadata": request["metadata"] ?? nil,
            "eta_relevance_data": ["status": true], "summary": nil, "analytics": [:],
            "unknown_future_field": ["nested": [1, 2, 3]],
        ]
        if var destination = request["destination"]?.objectValue {
            destination["radius"] = destination["radius"] ?? 30
            destination["scheduled_at"] = destination["scheduled_at"] ?? nil
            destination["address"] = "100 34th Ave, San Francisco, CA 94121, USA"
            trip["destination"] = .object(destination)
            trip["estimate"] = [
                "arrive_at": "2020-04-20T01:06:45.914154Z",
                "route": [
                    "distance": 4143, "duration": 552.0, "remaining_duration": 552,
                    "start_address": "Market St", "end_address": "34th Ave",
                    "polyline": ["type": "LineString", "coordinates": [[-122.50385, 37.76112], [-122.5, 37.78]]],
                ],
                "reroutes_exceeded": false,
            ]
        }
        if case .array(let geofences)? = request["geofences"] {
            trip["geofences"] = .array(
                geofences.enumerated().map { index, geofence in
                    var object = geofence.objectValue ?? [:]
                    object["geofence_id"] = .string("\(baseGeofenceID)-\(index)")
                    object["radius"] = object["radius"] ?? 30
                    return .object(object)
                }
            )
        }
        return .object(trip)
    }

    static func device(id: String, name: String, latitude: Double, longitude: Double) -> JSONValue {
        [
            "device_id": .string(id),
            "location": [
                "speed": 4.2, "accuracy": 14.1, "bearing": 193,
                "geometry": ["type": "Point", "coordinates": [.number(longitude), .number(latitude), 610]],
                "recorded_at": "2019-07-18T18:01:59.064000Z",
            ],
            "device_status": ["value": "active", "data": ["recorded_at": "2019-07-30T01:38:45.610000Z", "activity": "stop"]],
            "views": [
                "share_url": "https://trck.at/abcdef",
                "embed_url": .string("https://embed.hypertrack.com/devices/\(id)?publishable_key=pk"),
            ],
            "battery": "normal",
            "device_info": [
                "timezone": "America/Los_Angeles", "os_name": "iOS", "device_brand": "Apple", "sdk_version": "3.3.2",
                "device_model": "iPhone X", "network_operator": "T-Mobile", "name": .string(name), "os_version": "12.4",
            ],
            "registered_at": "2019-07-10T01:38:45.610000Z",
            "metadata": ["team": "sf"],
        ]
    }

    static let locationsLineString = """
        {"type": "LineString", "coordinates": [[-122.397368, 37.792382, 42.0, "2021-02-05T11:53:10.544Z"],
         [-122.3974, 37.7924, null, "2021-02-05T11:54:10Z"], [-122.398, 37.793, 12, "2021-02-05T11:55:10.123456+01:00"]]}
        """

    static let markers = """
        [{"marker_id": "m1", "type": "device_status",
          "data": {"value": "active", "activity": "drive", "reason": null,
                   "start": {"recorded_at": "2021-02-05T11:53:10.544Z",
                             "location": {"geometry": {"type": "Point", "coordinates": [-122.39, 37.79]},
                                          "recorded_at": "2021-02-05T11:53:10.544Z"}},
                   "end": {"recorded_at": "2021-02-05T11:58:10Z",
                           "location": {"geometry": {"type": "Point", "coordinates": [-122.4, 37.8]},
                                        "recorded_at": "2021-02-05T11:58:10Z"}},
                   "duration": 300}},
         {"marker_id": "m2", "type": "geofence",
          "data": {"arrival": {"location": {"geometry": {"type": "Point", "coordinates": [35.1, 47.8]},
                                            "recorded_at": "2021-02-05T12:00:00.000000Z"}},
                   "exit": {"location": {"geometry": null, "recorded_at": "2021-02-05T12:06:43+00:00"}},
                   "duration": 403.0,
                   "geofence": {"geofence_id": "g1", "geometry": {"type": "Point", "coordinates": [35.1, 47.8]},
                                "radius": 200, "metadata": {"stop": "A"}},
                   "route_to": {"distance": 1234, "duration": 3600, "idle_time": 0,
                                "started_at": "2021-02-05T11:00:00Z"}}},
         {"marker_id": "m3", "type": "trip_marker",
          "data": {"metadata": {"note": "picked up"}, "location": {"type": "Point", "coordinates": [1.5, 2.5]},
                   "recorded_at": "2021-02-05T12:10:00Z"}},
         {"marker_id": "m4", "type": "geotag_from_the_future", "data": {"anything": [1, "two"]}}]
        """

    static func summary(deviceID: String) -> String {
        """
        {"locations": \(locationsLineString), "distance": 4200.0, "duration": 900, "device_id": "\(deviceID)",
         "started_at": "2020-04-20T00:57:33.484361Z", "completed_at": "2020-04-20T01:10:00+00:00",
         "markers": \(markers), "steps": 5120}
        """
    }

    static func summaryJSON(deviceID: String) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(summary(deviceID: deviceID).utf8))) ?? nil
    }

    static func dayHistory(deviceID: String) -> String {
        """
        {"device_id": "\(deviceID)", "started_at": "2021-02-05T00:00:00+00:00",
         "completed_at": "2021-02-05T23:59:59.999Z", "locations": \(locationsLineString), "markers": \(markers),
         "distance": 6347.0, "duration": 86400, "tracking_rate": 100.0, "inactive_reasons": [],
         "inactive_duration": 0, "active_duration": 158, "stop_duration": 0, "walk_duration": 0,
         "drive_duration": 610, "trips": 0, "geotags": 0, "geofences_visited": 0}
        """
    }
}
