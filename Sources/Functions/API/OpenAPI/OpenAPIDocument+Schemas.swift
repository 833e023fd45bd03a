extension OpenAPIDocument {
    /// `components` of the document: the bodies the API reads and writes, the problem body, the two auth schemes
    /// and the problem responses every operation shares. A view's schema lists exactly the keys its `Codable`
    /// conformance writes (optional ones are left out, never `null`); schemathesis checks every response against it.
    static let components = #"""
        {
          "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer", "description": "An access token of `POST /v1/auth/session` or `POST /v1/auth/refresh`."},
            "operatorKey": {"type": "http", "scheme": "bearer", "description": "An operator's key from `ridesharing operators create NAME` (the /v1/ops routes only)."},
            "hypertrackSignature": {"type": "apiKey", "in": "header", "name": "x-hypertrack-signature", "description": "Lowercase hex of HMAC-SHA256(webhook secret, raw body), as HyperTrack signs its webhooks."}
          },
          "responses": {
            "BadRequest": {"description": "The body is not JSON (or is empty).", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "Unauthorized": {"description": "No valid bearer token.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "Forbidden": {"description": "The caller's role may not do this.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "NotFound": {"description": "No such order, or not one the caller may see.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "Conflict": {"description": "The order is not in a state that allows this (the detail names the state).", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "TooLarge": {"description": "The body is larger than 64 KiB.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "Invalid": {"description": "A field (or the body) is invalid; the detail names it.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "Error": {"description": "Any other error (405 with `Allow` for a wrong method), as a problem body.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
            "EventStream": {"description": "A `text/event-stream`: each event has `id:` (its position in the order event log, what `Last-Event-ID` resumes after), `event:` and one `data:` line of JSON. Events: `order.status`, `order.legs`, `order.summary` (`{order}`), `driver.position` (`{order_id, lat, lng, recorded_at}`), `offer.new` (`{order, expires_at}`), `offer.closed` (`{order_id, reason}`: declined, expired, taken, cancelled); on the share stream `share.order` (`{status, driver: {first_name, car}, eta, pickup, dropoff, routes, summary, updated_at}`). Without an id: `stream.reset` (`{reason: events_expired, pruned_through}`: events after the client's id were deleted; refetch) and `stream.closed` (`{reason}`: timeout, slow_consumer, shutdown; revoked on a share stream whose link was revoked or replaced) as the last event. Comment lines are heartbeats.", "content": {"text/event-stream": {"schema": {"type": "string"}}}}
          },
          "parameters": {
            "OrderID": {"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}},
            "TripID": {"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}},
            "ShareToken": {"name": "token", "in": "path", "required": true, "description": "The token of `POST /v1/orders/{id}/share`'s url.", "schema": {"type": "string"}},
            "LastEventID": {"name": "Last-Event-ID", "in": "header", "description": "Resume after this event id (what EventSource sends when it reconnects).", "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}},
            "LastEventIDQuery": {"name": "last_event_id", "in": "query", "description": "Resume after this event id (a browser's first connect cannot set the header); the header wins. Without either, only new events.", "schema": {"type": "integer", "minimum": 0, "maximum": 999999999999999999}},
            "StreamTimeout": {"name": "timeout", "in": "query", "description": "Seconds before the server ends the stream (with `stream.closed`); default and maximum the configured longest stream (EVENTS_MAX_STREAM_S, default 3600).", "schema": {"type": "integer", "minimum": 1}}
          },
          "schemas": {
            "ShareLink": {
              "type": "object", "required": ["url", "expires_at"], "additionalProperties": false,
              "properties": {"url": {"type": "string", "pattern": "^/share/"}, "expires_at": {"type": ["string", "null"], "format": "date-time"}}
            },
            "Problem": {
              "type": "object", "required": ["status", "title", "detail"], "additionalProperties": false,
              "properties": {"status": {"type": "integer"}, "title": {"type": "string"}, "detail": {"type": "string"}}
            },
            "Text200": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"},
            "Phone": {"type": "string", "minLength": 3, "maxLength": 32, "pattern": "^[0-9+\\-() ]*[0-9][0-9+\\-() ]*$"},
            "Car": {
              "type": "object", "required": ["model", "plate"], "additionalProperties": false,
              "properties": {"model": {"type": "string"}, "plate": {"type": "string"}}
            },
            "CarInput": {
              "type": "object", "required": ["model", "plate"],
              "properties": {
                "model": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"},
                "plate": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"}
              }
            },
            "User": {
              "type": "object", "required": ["id", "role", "phone"], "additionalProperties": false,
              "properties": {
                "id": {"type": "string", "format": "uuid"}, "role": {"type": "string", "enum": ["rider", "driver"]},
                "name": {"type": "string"}, "phone": {"type": "string"}, "device_id": {"type": "string"},
                "car": {"$ref": "#/components/schemas/Car"}, "available": {"type": "boolean"}
              }
            },
            "PlaceInput": {
              "type": "object", "required": ["lat", "lng"],
              "properties": {
                "lat": {"type": "number", "minimum": -90, "maximum": 90},
                "lng": {"type": "number", "minimum": -180, "maximum": 180},
                "address": {"type": "string", "minLength": 1, "maxLength": 300, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"}
              }
            },
            "BookOrder": {
              "type": "object", "required": ["pickup", "dropoff"],
              "properties": {"pickup": {"$ref": "#/components/schemas/PlaceInput"}, "dropoff": {"$ref": "#/components/schemas/PlaceInput"}}
            },
            "Cancel": {
              "type": "object", "required": ["reason"],
              "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"}}
            },
            "Availability": {
              "type": "object", "required": ["available"], "additionalProperties": false,
              "properties": {"available": {"type": "boolean"}}
            },
            "Place": {
              "type": "object", "required": ["lat", "lng"], "additionalProperties": false,
              "properties": {"lat": {"type": "number"}, "lng": {"type": "number"}, "address": {"type": "string"}}
            },
            "Driver": {
              "type": "object", "required": ["id", "name", "phone", "car"], "additionalProperties": false,
              "properties": {
                "id": {"type": "string", "format": "uuid"}, "name": {"type": "string"}, "phone": {"type": "string"},
                "car": {"$ref": "#/components/schemas/Car"}
              }
            },
            "Route": {
              "type": "array", "description": "`[lng, lat]` pairs.",
              "items": {"type": "array", "items": {"type": "number"}, "minItems": 2}
            },
            "Leg": {
              "type": "object", "required": ["leg", "status", "trip_id"], "additionalProperties": false,
              "properties": {
                "leg": {"type": "string", "enum": ["pickup", "dropoff"]},
                "status": {"type": "string", "enum": ["active", "completing", "completed"]},
                "trip_id": {"type": "string"}, "share_url": {"type": "string"}, "embed_url": {"type": "string"},
                "eta": {"type": "string", "format": "date-time"},
                "route": {"$ref": "#/components/schemas/Route", "description": "The planned route, simplified to at most 50 points; the full one is `GET /v1/orders/{id}/route`."},
                "arrived_at": {"type": "string", "format": "date-time"},
                "distance": {"type": "number"}, "duration": {"type": "number"}
              }
            },
            "LegTotals": {
              "type": "object", "required": ["distance", "duration"], "additionalProperties": false,
              "properties": {"distance": {"type": "number"}, "duration": {"type": "number"}}
            },
            "OrderSummary": {
              "type": "object", "required": ["dropoff", "total_distance", "total_duration", "fare"], "additionalProperties": false,
              "properties": {
                "pickup": {"$ref": "#/components/schemas/LegTotals"}, "dropoff": {"$ref": "#/components/schemas/LegTotals"},
                "total_distance": {"type": "number"}, "total_duration": {"type": "number"},
                "fare": {
                  "type": "object", "required": ["amount", "currency"], "additionalProperties": false,
                  "properties": {"amount": {"type": "integer"}, "currency": {"type": "string"}}
                }
              }
            },
            "Order": {
              "type": "object", "additionalProperties": false,
              "required": ["id", "status", "rider_id", "pickup", "dropoff", "created_at", "updated_at", "legs"],
              "properties": {
                "id": {"type": "string", "format": "uuid"},
                "status": {"type": "string", "enum": ["NEW", "ACCEPTED", "PICKING_UP", "REACHED_PICKUP", "STARTED_RIDE", "DROPPING_OFF", "REACHED_DROPOFF", "COMPLETED", "CANCELLED"]},
                "rider_id": {"type": "string", "format": "uuid"},
                "pickup": {"$ref": "#/components/schemas/Place"}, "dropoff": {"$ref": "#/components/schemas/Place"},
                "driver": {"$ref": "#/components/schemas/Driver"},
                "cancellation_reason": {"type": "string"},
                "summary": {"$ref": "#/components/schemas/OrderSummary"},
                "created_at": {"type": "string", "format": "date-time"},
                "updated_at": {"type": "string", "format": "date-time"},
                "legs": {"type": "array", "items": {"$ref": "#/components/schemas/Leg"}},
                "live_leg": {"$ref": "#/components/schemas/Leg"}
              }
            },
            "OrderPage": {
              "type": "object", "required": ["orders"], "additionalProperties": false,
              "properties": {
                "orders": {"type": "array", "items": {"$ref": "#/components/schemas/Order"}},
                "next_cursor": {"type": "string", "description": "Pass as `cursor` for the next page; absent on the last page."}
              }
            },
            "OrderRoute": {
              "type": "object", "required": ["order_id", "legs"], "additionalProperties": false,
              "properties": {
                "order_id": {"type": "string", "format": "uuid"},
                "legs": {
                  "type": "array",
                  "items": {
                    "type": "object", "required": ["leg"], "additionalProperties": false,
                    "properties": {"leg": {"type": "string", "enum": ["pickup", "dropoff"]}, "route": {"$ref": "#/components/schemas/Route"}}
                  }
                }
              }
            },
            "OfferList": {
              "type": "object", "required": ["offers"], "additionalProperties": false,
              "properties": {"offers": {"type": "array", "items": {"$ref": "#/components/schemas/Order"}}}
            },
            "NearbyDrivers": {
              "type": "object", "required": ["drivers"], "additionalProperties": false,
              "properties": {
                "drivers": {
                  "type": "array",
                  "items": {
                    "type": "object", "required": ["lat", "lng", "distance"], "additionalProperties": false,
                    "properties": {"lat": {"type": "number"}, "lng": {"type": "number"}, "distance": {"type": "number", "description": "Metres from the point asked about."}}
                  }
                }
              }
            },
            "Status": {
              "type": "object", "required": ["status"], "additionalProperties": false,
              "properties": {"status": {"type": "string"}, "detail": {"type": "string"}}
            },
            "Decline": {
              "type": "object", "required": ["order_id", "declined"], "additionalProperties": false,
              "properties": {"order_id": {"type": "string", "format": "uuid"}, "declined": {"type": "boolean"}}
            },
            "Rating": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 5}, {"type": "string", "enum": ["not_available"]}]},
            "TripPlace": {
              "type": ["object", "null"], "required": ["lat", "lng"],
              "properties": {"lat": {"type": "number"}, "lng": {"type": "number"}, "address": {"type": ["string", "null"]}}
            },
            "Trip": {
              "type": "object", "required": ["id", "started_at", "ended_at", "distance", "duration", "drive_type", "ratings"],
              "properties": {
                "id": {"type": "string", "format": "uuid"}, "started_at": {"type": "string"}, "ended_at": {"type": "string"},
                "distance": {"type": "number", "description": "Metres."}, "duration": {"type": "number", "description": "Seconds."},
                "start": {"$ref": "#/components/schemas/TripPlace"}, "end": {"$ref": "#/components/schemas/TripPlace"},
                "order_id": {"type": ["string", "null"]}, "drive_type": {"type": "string", "enum": ["pickup", "dropoff"]},
                "score": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
                "ratings": {
                  "type": "object",
                  "required": ["rapid_acceleration", "hard_braking", "speeding", "hard_turn", "phone_use"],
                  "properties": {
                    "rapid_acceleration": {"$ref": "#/components/schemas/Rating"}, "hard_braking": {"$ref": "#/components/schemas/Rating"},
                    "speeding": {"$ref": "#/components/schemas/Rating"}, "hard_turn": {"$ref": "#/components/schemas/Rating"},
                    "phone_use": {"$ref": "#/components/schemas/Rating"}
                  }
                },
                "feedback": {"type": ["string", "null"]}
              }
            },
            "TripPage": {
              "type": "object", "required": ["trips", "next_cursor"],
              "properties": {
                "trips": {"type": "array", "items": {"$ref": "#/components/schemas/Trip"}},
                "next_cursor": {"type": ["string", "null"]}
              }
            },
            "TripDetail": {
              "type": "object", "required": ["trip", "path", "info", "events"],
              "properties": {
                "trip": {"$ref": "#/components/schemas/Trip"},
                "path": {"type": "array", "items": {"type": "object", "required": ["time", "lat", "lng"], "properties": {"time": {"type": "string"}, "lat": {"type": "number"}, "lng": {"type": "number"}, "speed": {"type": ["number", "null"]}, "bearing": {"type": ["number", "null"]}}}},
                "info": {"type": "object", "required": ["drive_type", "vehicle_type", "point_count"], "properties": {"drive_type": {"type": "string"}, "vehicle_type": {"type": "string"}, "point_count": {"type": "integer"}}},
                "events": {"type": "array", "items": {"type": "object", "required": ["type", "start", "end"]}}
              }
            },
            "TripFeedback": {
              "type": "object", "required": ["kind"],
              "properties": {"kind": {"type": "string", "enum": ["not_driving", "not_a_trip", "passenger"]}}
            },
            "Program": {
              "type": "object", "required": ["rule", "scored_trips", "trips_needed", "qualified"],
              "properties": {
                "rule": {"type": "object", "required": ["minimum_trips", "minimum_average_score", "window_days"], "properties": {"minimum_trips": {"type": "integer"}, "minimum_average_score": {"type": "number"}, "window_days": {"type": "integer"}}},
                "scored_trips": {"type": "integer"}, "average_score": {"type": ["number", "null"]},
                "trips_needed": {"type": "integer"}, "qualified": {"type": "boolean"}
              }
            }
          }
        }
        """#
}
