import Foundation

extension Engine {
    /// `POST /trips`. Unknown top-level or destination keys are refused (the vendor's schema forbids them).
    func createTrip(_ body: JSON) throws(APIProblem) -> JSON {
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        for key in fields.keys where !["device_id", "destination", "geofences", "metadata"].contains(key) {
            throw .invalid(key, "unknown field")
        }
        guard let deviceID = fields["device_id"]?.stringValue, !deviceID.isEmpty else {
            throw .invalid("device_id", "required string")
        }
        let metadata = fields["metadata"] ?? .null
        guard metadata.isNull || metadata.objectValue != nil else { throw .invalid("metadata", "must be an object") }
        var destination: DestinationRecord?
        if let raw = fields["destination"], !raw.isNull { destination = try parseDestination(raw) }
        var geofences: [GeofenceRecord] = []
        if let raw = fields["geofences"], !raw.isNull {
            guard let items = raw.arrayValue else { throw .invalid("geofences", "must be an array") }
            geofences = try items.enumerated().map { index, item throws(APIProblem) in
                try parseGeofence(item, field: "geofences[\(index)]", deviceID: deviceID)
            }
        }
        var device = try deviceForUse(deviceID)
        if device.deleted { throw .invalid("device_id", "device '\(deviceID)' is deleted") }

        let tripID = state.random.uuid()
        var trip = TripRecord(
            id: tripID, deviceID: deviceID, startedAt: now, status: .active, metadata: metadata,
            destination: destination, geofences: geofences, trackingID: state.random.trackingID())
        if let destination {
            let route = Route.plan(from: device.position, to: destination.center, seed: configuration.seed)
            let motion = Motion(
                tripID: tripID, route: route, startedAt: now, speed: configuration.speed, initialSpeed: device.speed)
            let duration = motion.plan.duration.rounded()
            trip.estimate = EstimateRecord(
                route: route, startAddress: Geo.address(for: route.start), endAddress: destination.address,
                arriveAt: now.addingTimeInterval(duration), duration: duration)
            device.motion = motion
        }
        device.stoppedExplicitly = false
        device.record(
            LocationSample(coordinate: device.position, recordedAt: now, speed: device.speed, bearing: device.bearing))
        state.devices[deviceID] = device
        state.trips[tripID] = trip
        state.tripOrder.append(tripID)
        enqueueEvents([tripEvent(trip, value: "created")] + reportChanges(of: deviceID))
        return renderTrip(trip)
    }

    func parseDestination(_ raw: JSON) throws(APIProblem) -> DestinationRecord {
        guard let fields = raw.objectValue else { throw .invalid("destination", "must be an object") }
        for key in fields.keys where !["geometry", "radius", "scheduled_at"].contains(key) {
            throw .invalid("destination.\(key)", "unknown field")
        }
        let radius = try parseRadius(fields["radius"], field: "destination.radius")
        guard let (center, size) = Geo.area(
            geometry: fields["geometry"], radius: radius, defaultRadius: configuration.arrivalRadius)
        else { throw .invalid("destination.geometry", "expected a GeoJSON Point or Polygon") }
        var scheduledAt: Date?
        if let raw = fields["scheduled_at"], !raw.isNull {
            guard let date = raw.stringValue.flatMap(Timestamp.parse) else {
                throw .invalid("destination.scheduled_at", "expected an ISO-8601 timestamp")
            }
            scheduledAt = date
        }
        return DestinationRecord(
            geometry: fields["geometry"]!, center: center, radius: size, scheduledAt: scheduledAt,
            address: Geo.address(for: center))
    }

    func parseRadius(_ raw: JSON?, field: String) throws(APIProblem) -> Double? {
        guard let raw, !raw.isNull else { return nil }
        guard let value = raw.doubleValue, value > 0, value <= 100_000 else {
            throw .invalid(field, "must be a number of metres in (0, 100000]")
        }
        return value
    }

    func parseGeofence(_ raw: JSON, field: String, deviceID: String?) throws(APIProblem) -> GeofenceRecord {
        guard let fields = raw.objectValue else { throw .invalid(field, "must be an object") }
        for key in fields.keys where !["geometry", "radius", "metadata", "device_id"].contains(key) {
            throw .invalid("\(field).\(key)", "unknown field")
        }
        let radius = try parseRadius(fields["radius"], field: "\(field).radius")
        guard let (center, size) = Geo.area(
            geometry: fields["geometry"], radius: radius, defaultRadius: configuration.arrivalRadius)
        else { throw .invalid("\(field).geometry", "expected a GeoJSON Point or Polygon") }
        let metadata = fields["metadata"] ?? .null
        guard metadata.isNull || metadata.objectValue != nil else {
            throw .invalid("\(field).metadata", "must be an object")
        }
        return GeofenceRecord(
            id: state.random.uuid(), geometry: fields["geometry"]!, center: center, radius: size, metadata: metadata,
            deviceID: fields["device_id"]?.stringValue ?? deviceID, createdAt: now)
    }

    func trip(_ id: String) throws(APIProblem) -> TripRecord {
        guard let trip = state.trips[id] else { throw .tripNotFound(id) }
        return trip
    }

    func getTrip(_ id: String) throws(APIProblem) -> JSON { renderTrip(try trip(id)) }

    /// `GET /trips`: `status` is `active` (default), `processing_completion`, `completed` or `all`; `device_id`
    /// filters by device.
    func listTrips(status: String?, deviceID: String?, token: String?, query: [(String, String)]) throws(APIProblem)
        -> JSON
    {
        let wanted = status ?? "active"
        guard wanted == "all" || TripStatus(rawValue: wanted) != nil else {
            throw .invalid("status", "one of active, processing_completion, completed, all")
        }
        let ids: [String]
        if let deviceID {
            self.indexTrips()
            ids = self.tripIndex.byDevice[deviceID] ?? []
        } else {
            ids = state.tripOrder
        }
        let trips = ids.compactMap { state.trips[$0] }.filter { trip in
            (wanted == "all" || trip.status.rawValue == wanted) && (deviceID == nil || trip.deviceID == deviceID)
        }
        return try page(trips.map(renderTrip), token: token, path: "/trips", query: query)
    }

    /// `POST /trips/{id}/complete`: `active → processing_completion`; finished by the simulation after
    /// `completionDelay`. Completing a trip that is already completing or completed changes nothing.
    func completeTrip(_ id: String) throws(APIProblem) {
        var trip = try trip(id)
        guard trip.status == .active else { return }
        trip.status = .processingCompletion
        trip.completionRequestedAt = now
        state.trips[id] = trip
        if var device = state.devices[trip.deviceID], device.motion?.tripID == id {
            settle(&device, at: now)
            device.motion = nil
            let rolling = device.speed
            device.speed = 0
            state.devices[trip.deviceID] = device
            // A driver who completes a trip while still rolling drives on into the next one at that speed.
            resumeMotion(of: trip.deviceID, speed: rolling)
        }
        enqueueEvents(reportChanges(of: trip.deviceID))
    }

    /// Points a device at its newest active trip with a destination it has not reached, if any, starting at
    /// `speed` (m/s; from rest by default).
    func resumeMotion(of deviceID: String, speed: Double = 0) {
        // The trips first: at every step this runs for each still device, and most have none.
        guard let next = activeTrips(of: deviceID).last(where: { $0.destination != nil && $0.destination?.arrivedAt == nil }),
            let destination = next.destination
        else { return }
        guard var device = state.devices[deviceID], device.motion == nil else { return }
        let route = Route.plan(from: device.position, to: destination.center, seed: configuration.seed)
        device.motion = Motion(
            tripID: next.id, route: route, startedAt: now, speed: configuration.speed, initialSpeed: speed)
        state.devices[deviceID] = device
    }

    func getTripGeofence(_ tripID: String, _ geofenceID: String) throws(APIProblem) -> JSON {
        let trip = try trip(tripID)
        guard let geofence = trip.geofences.first(where: { $0.id == geofenceID }) else {
            throw .geofenceNotFound(geofenceID)
        }
        return renderTripGeofence(geofence)
    }

    /// `PATCH /trips/{id}/geofence/{gid}` `{"metadata": {…}}` (allowed on completed trips too).
    func patchTripGeofence(_ tripID: String, _ geofenceID: String, body: JSON) throws(APIProblem) -> JSON {
        var trip = try trip(tripID)
        guard let index = trip.geofences.firstIndex(where: { $0.id == geofenceID }) else {
            throw .geofenceNotFound(geofenceID)
        }
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        for key in fields.keys where key != "metadata" { throw .invalid(key, "unknown field") }
        guard let metadata = fields["metadata"], metadata.isNull || metadata.objectValue != nil else {
            throw .invalid("metadata", "required object")
        }
        trip.geofences[index].metadata = metadata
        state.trips[tripID] = trip
        return renderTripGeofence(trip.geofences[index])
    }

    /// `PATCH /trips/{id}/geofence` `{"geofences": [...]}`: appends geofences to an active trip.
    func addTripGeofences(_ tripID: String, body: JSON) throws(APIProblem) -> JSON {
        var trip = try trip(tripID)
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        for key in fields.keys where key != "geofences" { throw .invalid(key, "unknown field") }
        guard let items = fields["geofences"]?.arrayValue, !items.isEmpty else {
            throw .invalid("geofences", "required non-empty array")
        }
        guard trip.status == .active else { throw .invalid("trip_id", "trip '\(tripID)' is not active") }
        let added = try items.enumerated().map { index, item throws(APIProblem) in
            try parseGeofence(item, field: "geofences[\(index)]", deviceID: trip.deviceID)
        }
        trip.geofences += added
        state.trips[tripID] = trip
        return renderTrip(trip)
    }
}
