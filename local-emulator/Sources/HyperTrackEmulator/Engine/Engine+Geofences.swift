extension Engine {
    /// `POST /geofences` with an array of definitions (or `{"geofences": [...]}`) → 201 array of geofences.
    func createGeofences(_ body: JSON) throws(APIProblem) -> JSON {
        let items: [JSON]
        if let array = body.arrayValue {
            items = array
        } else if let array = body["geofences"]?.arrayValue {
            items = array
        } else {
            throw .wrongContentFormat("The body must be an array of geofence definitions")
        }
        guard !items.isEmpty else { throw .invalid("geofences", "required non-empty array") }
        let created = try items.enumerated().map { index, item throws(APIProblem) in
            try parseGeofence(item, field: "geofences[\(index)]", deviceID: nil)
        }
        for geofence in created {
            state.geofences[geofence.id] = geofence
            state.geofenceOrder.append(geofence.id)
        }
        return .array(created.map(renderAccountGeofence))
    }

    func accountGeofence(_ id: String) throws(APIProblem) -> GeofenceRecord {
        guard let geofence = state.geofences[id], !geofence.archived else { throw .geofenceNotFound(id) }
        return geofence
    }

    func listGeofences(token: String?, query: [(String, String)]) throws(APIProblem) -> JSON {
        let items = state.geofenceOrder.compactMap { state.geofences[$0] }.filter { !$0.archived }
        return try page(items.map(renderAccountGeofence), token: token, path: "/geofences", query: query)
    }

    func getGeofence(_ id: String) throws(APIProblem) -> JSON { renderAccountGeofence(try accountGeofence(id)) }

    /// `PATCH /geofences/{id}` `{"metadata": {…}}`.
    func patchGeofence(_ id: String, body: JSON) throws(APIProblem) -> JSON {
        var geofence = try accountGeofence(id)
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        for key in fields.keys where key != "metadata" { throw .invalid(key, "unknown field") }
        guard let metadata = fields["metadata"], metadata.isNull || metadata.objectValue != nil else {
            throw .invalid("metadata", "required object")
        }
        geofence.metadata = metadata
        state.geofences[id] = geofence
        return renderAccountGeofence(geofence)
    }

    /// `DELETE /geofences/{id}`: archives it (it no longer lists or reads).
    func deleteGeofence(_ id: String) throws(APIProblem) {
        var geofence = try accountGeofence(id)
        geofence.archived = true
        state.geofences[id] = geofence
    }
}
