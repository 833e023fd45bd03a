import Foundation

extension Engine {
    /// Moves a device to where its motion puts it at `time`, recording the sample. Reads nothing of the engine:
    /// ``tick()`` calls it on a record in place.
    func settle(_ device: inout DeviceRecord, at time: Date) {
        guard let motion = device.motion, time > device.lastRecordedAt else { return }
        let (travelled, speed) = motion.plan.state(at: motion.elapsed(time))
        let position = motion.track.position(at: travelled)
        device.position = position
        device.bearing = motion.track.bearing(at: travelled)
        device.speed = speed
        device.lastRecordedAt = time
        device.record(
            LocationSample(coordinate: position, recordedAt: time, speed: device.speed, bearing: device.bearing))
    }

    /// One simulation step at `state.nextTickAt`: movement, arrivals, geofence entries, completions and nearby
    /// requests, in a fixed order so the same inputs give the same events. Returns the step's events.
    func tick() -> [JSON] {
        let time = state.nextTickAt
        state.now = time
        state.nextTickAt = time.addingTimeInterval(options.tickInterval)
        var events: [JSON] = []
        // A device's record changes in place (`state.devices.values[index]`), never as a copy written back: a copy
        // shares the record's samples (`locations`, every position the phone recorded), so the step's first sample
        // appended to it copied them all, for every moving phone at every step and every still one at each report.
        // In the 57th session's ten-minute city (a step every emulated second, 10,000 phones) the emulator took 18%
        // of a core and 2.5 GB; see BENCHMARKS.md (58th session) for what this saved. `locationEvent` reads the
        // engine's clock, so it runs between the in-place changes, never inside one (an overlapping access traps).
        for id in state.deviceOrder {
            guard let index = state.devices.index(forKey: id), !state.devices.values[index].deleted else { continue }
            if let motion = state.devices.values[index].motion {
                let recordedAt = state.devices.values[index].lastRecordedAt
                let moved = time > recordedAt && !motion.isFinished(at: recordedAt)
                // Settling moves the phone and records samples: it changes neither tracking nor being online.
                let reporting = isReporting(state.devices.values[index])
                // Around a manoeuvre the phone's 1-second locations go out with the step's (see DrivingLimits).
                if moved {
                    for instant in motion.denseSamples(after: recordedAt, before: time) {
                        settle(&state.devices.values[index], at: instant)
                        if reporting { events.append(locationEvent(state.devices.values[index])) }
                    }
                }
                settle(&state.devices.values[index], at: time)
                let finished = motion.isFinished(at: time)
                if finished { state.devices.values[index].motion = nil }
                if moved, reporting, finished || movingReportDue(state.devices.values[index], at: time) {
                    state.devices.values[index].lastReportedAt = time
                    events.append(locationEvent(state.devices.values[index]))
                }
            }
            // Also for still devices: one moved by `POST /_emulator/devices` may now be inside a destination.
            events += arrivals(of: state.devices.values[index], at: time)
            events += reportChanges(of: id)
            if let index = state.devices.index(forKey: id), periodicReportDue(state.devices.values[index], at: time) {
                recordStationaryReport(&state.devices.values[index], at: time)
                events.append(locationEvent(state.devices.values[index]))
            }
        }
        var completed = false
        for id in openTripIDs() {
            guard var trip = state.trips[id], trip.status == .processingCompletion,
                let requested = trip.completionRequestedAt,
                time.timeIntervalSince(requested) >= options.completionDelay
            else { continue }
            completed = true
            trip.status = .completed
            trip.completedAt = requested
            trip.summary = summary(of: trip, completedAt: requested)
            state.trips[id] = trip
            events.append(tripEvent(trip, value: "completed", extra: ["summary": trip.summary!]))
        }
        if completed { forgetCompletedTrips() }
        events += completeNearbyRequests(at: time)
        return events
    }

    /// Destination arrivals and trip geofence entries of a device's active trips at its current position.
    func arrivals(of device: DeviceRecord, at time: Date) -> [JSON] {
        var events: [JSON] = []
        for var trip in activeTrips(of: device.id) {
            var changed = false
            if var destination = trip.destination, destination.arrivedAt == nil,
                Geo.distance(device.position, destination.center) <= destination.radius
            {
                destination.arrivedAt = time
                trip.destination = destination
                changed = true
                events.append(tripEvent(trip, value: "destination_arrival"))
            }
            for index in trip.geofences.indices where trip.geofences[index].arrivedAt == nil {
                let geofence = trip.geofences[index]
                guard Geo.distance(device.position, geofence.center) <= geofence.radius else { continue }
                trip.geofences[index].arrivedAt = time
                changed = true
                events.append(
                    tripEvent(trip, value: "geofence_enter", extra: ["geofence_metadata": geofence.metadata]))
            }
            if changed { state.trips[trip.id] = trip }
        }
        if device.motion == nil { resumeMotion(of: device.id) }
        return events
    }

    /// A completed trip's summary: distance, duration, locations and markers from the device's samples.
    func summary(of trip: TripRecord, completedAt: Date) -> JSON {
        let samples = state.devices[trip.deviceID]?.locations.filter {
            $0.recordedAt >= trip.startedAt && $0.recordedAt <= completedAt
        } ?? []
        let distance = zip(samples, samples.dropFirst()).reduce(0.0) { total, pair in
            total + Geo.distance(pair.0.coordinate, pair.1.coordinate)
        }
        var markers = driveMarkers(samples)
        for geofence in trip.geofences {
            guard let arrivedAt = geofence.arrivedAt else { continue }
            markers.append([
                "marker_id": .string(StableUUID.make("\(trip.id):\(geofence.id)")), "type": "geofence",
                "data": [
                    "arrival": ["location": ["geometry": geofence.center.point, "recorded_at": Timestamp.json(arrivedAt)]],
                    "geofence": renderTripGeofence(geofence),
                ],
            ])
        }
        return [
            "locations": Self.lineString(samples), "distance": .number(distance.rounded()),
            "duration": .number(completedAt.timeIntervalSince(trip.startedAt).rounded()),
            "started_at": Timestamp.json(trip.startedAt), "completed_at": Timestamp.json(completedAt),
            "device_id": .string(trip.deviceID), "markers": .array(markers),
        ]
    }

    /// `device_status` markers: one per run of consecutive moving (`drive`) or still (`stop`) samples.
    func driveMarkers(_ samples: [LocationSample]) -> [JSON] {
        guard samples.count > 1 else { return [] }
        var markers: [JSON] = []
        var runStart = 0
        func activity(_ index: Int) -> String {
            Geo.distance(samples[index - 1].coordinate, samples[index].coordinate) > 0.5 ? "drive" : "stop"
        }
        var current = activity(1)
        func close(_ end: Int) {
            let first = samples[runStart]
            let last = samples[end]
            func point(_ s: LocationSample) -> JSON {
                ["recorded_at": Timestamp.json(s.recordedAt),
                 "location": ["geometry": s.coordinate.point, "recorded_at": Timestamp.json(s.recordedAt)]]
            }
            markers.append([
                "marker_id": .string(StableUUID.make("\(first.recordedAt.timeIntervalSince1970):\(current):\(end)")),
                "type": "device_status",
                "data": [
                    "value": "active", "activity": .string(current), "reason": nil, "start": point(first),
                    "end": point(last), "duration": .number(last.recordedAt.timeIntervalSince(first.recordedAt).rounded()),
                ],
            ])
        }
        for index in 2..<samples.count + 1 {
            if index == samples.count || activity(index) != current {
                close(index - 1)
                runStart = index - 1
                if index < samples.count { current = activity(index) }
            }
        }
        return markers
    }
}
