import Foundation

extension Engine {
    func renderTrip(_ trip: TripRecord) -> JSON {
        var fields: [String: JSON] = [
            "trip_id": .string(trip.id), "device_id": .string(trip.deviceID),
            "started_at": Timestamp.json(trip.startedAt), "completed_at": Timestamp.json(trip.completedAt),
            "status": .string(trip.status.rawValue),
            "views": [
                "share_url": .string("https://trck.at/\(trip.trackingID)"),
                "embed_url": .string(
                    "https://embed.hypertrack.com/trips/\(trip.id)?publishable_key=\(configuration.publishableKey)"),
            ],
            "device_info": ["os_version": "17.4", "sdk_version": "5.0.0"],
            "metadata": trip.metadata,
            "geofences": .array(trip.geofences.map(renderTripGeofence)),
            "summary": trip.summary ?? .null,
            "analytics": [:],
        ]
        if let destination = trip.destination {
            var rendered: [String: JSON] = [
                "geometry": destination.geometry, "radius": .number(destination.radius),
                "scheduled_at": Timestamp.json(destination.scheduledAt), "address": .string(destination.address),
            ]
            if let arrivedAt = destination.arrivedAt { rendered["arrived_at"] = Timestamp.json(arrivedAt) }
            fields["destination"] = .object(rendered)
        }
        if let estimate = trip.estimate, trip.status == .active {
            let remaining = remainingRoute(of: trip, estimate: estimate)
            let remainingDuration = remainingSeconds(of: trip, estimate: estimate)
            fields["estimate"] = [
                "arrive_at": Timestamp.json(
                    trip.destination?.arrivedAt ?? now.addingTimeInterval(remainingDuration)),
                "route": [
                    "distance": .number(estimate.route.length.rounded()), "duration": .number(estimate.duration),
                    "remaining_duration": .number(remainingDuration), "start_address": .string(estimate.startAddress),
                    "end_address": .string(estimate.endAddress), "polyline": remaining.lineString,
                ],
                "reroutes_exceeded": false,
            ]
            fields["eta_relevance_data"] = ["status": true]
        } else if trip.estimate != nil {
            // A completing/completed trip has no estimate any more: the key is left out.
            fields["eta_relevance_data"] = ["status": false, "reason": "Trip completed"]
        } else {
            fields["eta_relevance_data"] = ["status": false, "reason": "No destination"]
        }
        return .object(fields)
    }

    /// The route still ahead of the trip's device (the whole estimate while another trip drives the device).
    func remainingRoute(of trip: TripRecord, estimate: EstimateRecord) -> Route {
        if trip.destination?.arrivedAt != nil { return Route(points: [estimate.route.end]) }
        guard let device = state.devices[trip.deviceID], let motion = device.motion, motion.tripID == trip.id else {
            return estimate.route
        }
        return motion.route.remaining(after: motion.travelled(at: device.lastRecordedAt))
    }

    /// Seconds the trip's drive still takes by its plan (the whole estimate while another trip drives the device).
    func remainingSeconds(of trip: TripRecord, estimate: EstimateRecord) -> Double {
        if trip.destination?.arrivedAt != nil { return 0 }
        guard let device = state.devices[trip.deviceID], let motion = device.motion, motion.tripID == trip.id else {
            return estimate.duration
        }
        return max(0, motion.plan.duration - motion.elapsed(device.lastRecordedAt)).rounded()
    }

    func renderTripGeofence(_ geofence: GeofenceRecord) -> JSON {
        var fields: [String: JSON] = [
            "geofence_id": .string(geofence.id), "geometry": geofence.geometry, "radius": .number(geofence.radius),
            "metadata": geofence.metadata,
        ]
        if let arrivedAt = geofence.arrivedAt { fields["arrival"] = ["recorded_at": Timestamp.json(arrivedAt)] }
        return .object(fields)
    }

    func renderAccountGeofence(_ geofence: GeofenceRecord) -> JSON {
        [
            "geofence_id": .string(geofence.id), "account_id": .string(configuration.accountID),
            "device_id": geofence.deviceID.json, "single_use": false, "created_at": Timestamp.json(geofence.createdAt),
            "metadata": geofence.metadata, "geometry": geofence.geometry, "radius": .number(geofence.radius),
            "archived": .bool(geofence.archived), "geofence_type": geofence.deviceID == nil ? "account" : "device",
            "markers": ["data": [], "pagination_token": nil, "links": [:]],
        ]
    }

    /// A `trip` webhook event.
    func tripEvent(_ trip: TripRecord, value: String, extra: [String: JSON] = [:]) -> JSON {
        var data: [String: JSON] = ["value": .string(value), "trip_id": .string(trip.id), "trip_metadata": trip.metadata]
        data.merge(extra) { _, new in new }
        return [
            "created_at": Timestamp.json(now), "device_id": .string(trip.deviceID), "type": "trip",
            "data": .object(data), "version": "2.0.0",
        ]
    }

    /// A `location` webhook event. A driving device's carries `posted_limit_kmh`, the limit of the street it is
    /// on: an extension of ours (HyperTrack gives no limits) that a backend may use and must not need.
    func locationEvent(_ device: DeviceRecord) -> JSON {
        var data: [String: JSON] = [
            "geometry": device.position.point, "accuracy": 5, "speed": .number((device.speed * 100).rounded() / 100),
            "bearing": .number((device.bearing * 10).rounded() / 10),
        ]
        if let motion = device.motion {
            data["posted_limit_kmh"] = .number(motion.track.limit(at: motion.travelled(at: device.lastRecordedAt)))
        }
        return [
            "created_at": Timestamp.json(now), "recorded_at": Timestamp.json(device.lastRecordedAt),
            "device_id": .string(device.id), "type": "location", "data": .object(data), "version": "2.0.0",
        ]
    }
}
