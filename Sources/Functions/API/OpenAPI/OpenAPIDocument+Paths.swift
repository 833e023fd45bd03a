extension OpenAPIDocument {
    /// `paths` of the document, one entry per route of `/v1`. To add a route: add its operation here (the
    /// `$ref`s below name the shared problem responses and schemas of ``components``); `OpenAPITests` fails, naming
    /// the route and the side it is missing from, until the router and this list agree.
    ///
    /// `{maximumPageSize}` is replaced by the configured page size when the document is built.
    static let paths = #"""
        {
          "/v1/me": {
            "get": {
              "operationId": "me", "summary": "The caller.",
              "responses": {
                "200": {"description": "The caller.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "default": {"$ref": "#/components/responses/Error"}
              }
            },
            "put": {
              "operationId": "updateProfile", "summary": "Complete or change the caller's profile: a name; for drivers also their car and the HyperTrack device of their phone (bound to this account; a new one unbinds the old).",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Profile"}}}},
              "responses": {
                "200": {"description": "The caller.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"$ref": "#/components/responses/Unauthorized"},
                "409": {"description": "The device is bound to another account.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "413": {"$ref": "#/components/responses/TooLarge"}, "422": {"$ref": "#/components/responses/Invalid"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders": {
            "post": {
              "operationId": "bookOrder", "summary": "Book a ride (riders only); drivers nearby are offered it.",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BookOrder"}}}},
              "responses": {
                "201": {"description": "Booked.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"$ref": "#/components/responses/Unauthorized"},
                "403": {"$ref": "#/components/responses/Forbidden"}, "413": {"$ref": "#/components/responses/TooLarge"},
                "422": {"$ref": "#/components/responses/Invalid"}, "default": {"$ref": "#/components/responses/Error"}
              }
            },
            "get": {
              "operationId": "listOrders", "summary": "The caller's orders (as rider or as driver), newest first.",
              "parameters": [
                {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": "{maximumPageSize}", "default": 20}},
                {"name": "cursor", "in": "query", "description": "The `next_cursor` of the previous page.", "schema": {"type": "string"}}
              ],
              "responses": {
                "200": {"description": "A page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OrderPage"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "422": {"$ref": "#/components/responses/Invalid"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "get": {
              "operationId": "getOrder", "summary": "One order, if the caller is its rider, its driver, or a driver it is offered to.",
              "responses": {
                "200": {"description": "The order.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "404": {"$ref": "#/components/responses/NotFound"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/route": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "get": {
              "operationId": "getOrderRoute", "summary": "Each leg's full planned route (orders carry it simplified).",
              "responses": {
                "200": {"description": "The routes.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OrderRoute"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "404": {"$ref": "#/components/responses/NotFound"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/accept": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "post": {
              "operationId": "acceptOrder", "summary": "Accept an order offered to the caller (drivers only); the first driver wins. An offer expired less than the accept grace ago (10 s by default) is still accepted while the order is NEW.",
              "responses": {
                "200": {"description": "Accepted.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "409": {"$ref": "#/components/responses/Conflict"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/decline": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "post": {
              "operationId": "declineOrder", "summary": "Turn down an open offer (drivers only); when it was the round's last open offer, the next round runs at once.",
              "responses": {
                "200": {"description": "Declined.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Decline"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "409": {"$ref": "#/components/responses/Conflict"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/start": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "post": {
              "operationId": "startRide", "summary": "Start the ride once the driver reached the pickup (REACHED_PICKUP to STARTED_RIDE).",
              "responses": {
                "200": {"description": "Started.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "409": {"$ref": "#/components/responses/Conflict"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/complete": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "post": {
              "operationId": "completeRide", "summary": "Complete the ride at the dropoff (REACHED_DROPOFF to COMPLETED).",
              "responses": {
                "200": {"description": "Completed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "409": {"$ref": "#/components/responses/Conflict"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/cancel": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "post": {
              "operationId": "cancelOrder", "summary": "Cancel (its rider or its driver) with a reason.",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Cancel"}}}},
              "responses": {
                "200": {"description": "Cancelled.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"$ref": "#/components/responses/Unauthorized"},
                "404": {"$ref": "#/components/responses/NotFound"}, "409": {"$ref": "#/components/responses/Conflict"},
                "413": {"$ref": "#/components/responses/TooLarge"}, "422": {"$ref": "#/components/responses/Invalid"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/nearby": {
            "get": {
              "operationId": "nearbyDrivers", "summary": "Available, idle cars near a point, for riders: positions rounded to 0.001° and distances to 100 m, no identities (at most 20).",
              "parameters": [
                {"name": "lat", "in": "query", "required": true, "schema": {"type": "number", "minimum": -90, "maximum": 90}},
                {"name": "lng", "in": "query", "required": true, "schema": {"type": "number", "minimum": -180, "maximum": 180}},
                {"name": "radius", "in": "query", "description": "Metres.", "schema": {"type": "number", "minimum": 1, "maximum": 50000, "default": 2000}}
              ],
              "responses": {
                "200": {"description": "The drivers, nearest first.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NearbyDrivers"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "422": {"$ref": "#/components/responses/Invalid"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/me/availability": {
            "put": {
              "operationId": "setAvailability", "summary": "Whether the driver takes offers (drivers only).",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Availability"}}}},
              "responses": {
                "200": {"description": "Set.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Availability"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"$ref": "#/components/responses/Unauthorized"},
                "403": {"$ref": "#/components/responses/Forbidden"}, "413": {"$ref": "#/components/responses/TooLarge"},
                "422": {"$ref": "#/components/responses/Invalid"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/offers": {
            "get": {
              "operationId": "offers", "summary": "NEW orders offered to the driver, newest offer first (drivers only).",
              "responses": {
                "200": {"description": "The offers.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OfferList"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/hypertrack/webhooks": {
            "post": {
              "operationId": "hyperTrackWebhook", "summary": "HyperTrack's webhook deliveries (a JSON array of events) when no path secret is configured: authenticated by their HMAC signature; stored, then processed by the worker.",
              "security": [{"hypertrackSignature": []}],
              "parameters": [{"name": "x-amz-sns-message-id", "in": "header", "required": true, "schema": {"type": "string", "minLength": 1}}],
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object"}}}}},
              "responses": {
                "200": {"description": "An AWS SNS subscription confirmation (logged, confirmed when configured).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}},
                "202": {"description": "Accepted: the delivery's usable events applied and stored (with `WEBHOOKS_APPLY=worker`, its body stored as received and its events applied and rejected by the worker a moment later; a repeated or replayed event is stored once), the rest recorded as rejected.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"description": "Not authentic: the signature is missing or wrong, or this server expects a secret in the URL.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "413": {"$ref": "#/components/responses/TooLarge"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/hypertrack/webhooks/{secret}": {
            "parameters": [{"name": "secret", "in": "path", "required": true, "description": "One of the configured webhook path secrets (the URL pasted into HyperTrack's dashboard).", "schema": {"type": "string"}}],
            "post": {
              "operationId": "hyperTrackWebhookWithSecret", "summary": "HyperTrack's webhook deliveries, authenticated by the secret in the URL (and by the HMAC signature too when a signing key is configured).",
              "security": [{}, {"hypertrackSignature": []}],
              "parameters": [{"name": "x-amz-sns-message-id", "in": "header", "required": true, "schema": {"type": "string", "minLength": 1}}],
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object"}}}}},
              "responses": {
                "200": {"description": "An AWS SNS subscription confirmation (logged, confirmed when configured).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}},
                "202": {"description": "Accepted: the delivery's usable events applied and stored (with `WEBHOOKS_APPLY=worker`, its body stored as received and its events applied and rejected by the worker a moment later), the rest recorded as rejected.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "401": {"description": "Not authentic: the URL's secret or the signature is wrong.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "413": {"$ref": "#/components/responses/TooLarge"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/me/trips": {
            "get": {
              "operationId": "listTrips", "summary": "The calling driver's trips, newest first, 30 a page, with their driving scores and ratings.",
              "parameters": [{"name": "cursor", "in": "query", "description": "The `next_cursor` of the previous page.", "schema": {"type": "string"}}],
              "responses": {
                "200": {"description": "A page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TripPage"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"$ref": "#/components/responses/Unauthorized"},
                "403": {"$ref": "#/components/responses/Forbidden"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/me/trips/{id}": {
            "parameters": [{"$ref": "#/components/parameters/TripID"}],
            "get": {
              "operationId": "getTrip", "summary": "One trip of the calling driver: its simplified path, information and driving events.",
              "responses": {
                "200": {"description": "The trip.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TripDetail"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/me/trips/{id}/map.svg": {
            "parameters": [{"$ref": "#/components/parameters/TripID"}],
            "get": {
              "operationId": "getTripMap", "summary": "The trip's path with its driving events marked, as SVG (no map tiles).",
              "responses": {
                "200": {"description": "The map.", "content": {"image/svg+xml": {"schema": {"type": "string"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/me/trips/{id}/feedback": {
            "parameters": [{"$ref": "#/components/parameters/TripID"}],
            "post": {
              "operationId": "tripFeedback", "summary": "Mark a trip as not driven by the driver; it no longer counts for the program (trips under 7 days old, while not qualified).",
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TripFeedback"}}}},
              "responses": {
                "200": {"description": "Recorded.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Trip"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"$ref": "#/components/responses/Unauthorized"},
                "403": {"$ref": "#/components/responses/Forbidden"}, "404": {"$ref": "#/components/responses/NotFound"},
                "409": {"$ref": "#/components/responses/Conflict"}, "413": {"$ref": "#/components/responses/TooLarge"},
                "422": {"$ref": "#/components/responses/Invalid"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/events": {
            "get": {
              "operationId": "streamEvents", "summary": "Server-sent events of the caller's orders (status, legs, summary, driver positions) and, for a driver, their offers. Resumes after `Last-Event-ID`; heartbeats are comment lines; ends after `timeout` seconds with `stream.closed`.",
              "parameters": [{"$ref": "#/components/parameters/LastEventID"}, {"$ref": "#/components/parameters/LastEventIDQuery"}, {"$ref": "#/components/parameters/StreamTimeout"}],
              "responses": {
                "200": {"$ref": "#/components/responses/EventStream"},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "422": {"$ref": "#/components/responses/Invalid"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/events": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "get": {
              "operationId": "streamOrderEvents", "summary": "Server-sent events of one order, for those who may read it (as `GET /v1/orders/{id}`); resumes after `Last-Event-ID`.",
              "parameters": [{"$ref": "#/components/parameters/LastEventID"}, {"$ref": "#/components/parameters/LastEventIDQuery"}, {"$ref": "#/components/parameters/StreamTimeout"}],
              "responses": {
                "200": {"$ref": "#/components/responses/EventStream"},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "404": {"$ref": "#/components/responses/NotFound"},
                "422": {"$ref": "#/components/responses/Invalid"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/orders/{id}/share": {
            "parameters": [{"$ref": "#/components/parameters/OrderID"}],
            "post": {
              "operationId": "shareOrder", "summary": "A public link to a live page of the ride (the order's rider only); a new link replaces the previous one. It expires the configured time after the ride ends.",
              "responses": {
                "201": {"description": "The link.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ShareLink"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "409": {"$ref": "#/components/responses/Conflict"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            },
            "delete": {
              "operationId": "revokeShare", "summary": "Revoke the order's share link (the order's rider only).",
              "responses": {
                "204": {"description": "Revoked."},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"$ref": "#/components/responses/NotFound"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/share/{token}": {
            "parameters": [{"$ref": "#/components/parameters/ShareToken"}],
            "get": {
              "operationId": "sharePage", "summary": "The public live page of a shared ride (HTML under a strict Content-Security-Policy).", "security": [],
              "responses": {
                "200": {"description": "The page.", "content": {"text/html": {"schema": {"type": "string"}}}},
                "404": {"description": "The link does not exist, was revoked or expired.", "content": {"text/html": {"schema": {"type": "string"}}}},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/share/{token}/events": {
            "parameters": [{"$ref": "#/components/parameters/ShareToken"}],
            "get": {
              "operationId": "shareEvents", "summary": "The share page's stream: a snapshot (`share.order`, `driver.position`) then live `share.order` and `driver.position` events of the ride.", "security": [],
              "parameters": [{"$ref": "#/components/parameters/LastEventID"}, {"$ref": "#/components/parameters/LastEventIDQuery"}, {"$ref": "#/components/parameters/StreamTimeout"}],
              "responses": {
                "200": {"$ref": "#/components/responses/EventStream"},
                "404": {"description": "The link does not exist, was revoked or expired.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "422": {"$ref": "#/components/responses/Invalid"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/share/assets/share.js": {
            "get": {
              "operationId": "shareScript", "summary": "The share page's script.", "security": [],
              "responses": {
                "200": {"description": "The script.", "content": {"text/javascript": {"schema": {"type": "string"}}}},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/share/assets/share.css": {
            "get": {
              "operationId": "shareStyle", "summary": "The share page's style sheet.", "security": [],
              "responses": {
                "200": {"description": "The style sheet.", "content": {"text/css": {"schema": {"type": "string"}}}},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/drivers/me/program": {
            "get": {
              "operationId": "program", "summary": "The qualification rule and the calling driver's progress.",
              "responses": {
                "200": {"description": "The program.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Program"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          }
        }
        """#
}
