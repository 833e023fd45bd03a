extension OpenAPIDocument {
    /// `paths` of sign-in, sessions and the operators' routes (issue 17), merged into ``paths`` when the document is
    /// built (kept apart so neither literal outgrows a file). `PUT /v1/me` is with `GET /v1/me` in ``paths``.
    static let accountPaths = #"""
        {
          "/v1/auth/code": {
            "post": {
              "operationId": "requestCode", "summary": "Send a 6-digit sign-in code to a phone (valid 5 minutes by default).", "security": [],
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CodeRequest"}}}},
              "responses": {
                "202": {"description": "Sent.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CodeSent"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "413": {"$ref": "#/components/responses/TooLarge"},
                "422": {"$ref": "#/components/responses/Invalid"},
                "429": {"description": "Too many codes for this phone in the last hour (`Retry-After` says when to ask again).", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "502": {"description": "The SMS provider did not take the code.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "503": {"description": "No code delivery is configured.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/auth/session": {
            "post": {
              "operationId": "signIn", "summary": "Trade a phone's code for an access token and a refresh token (a new account on a phone's first sign-in).", "security": [],
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SignIn"}}}},
              "responses": {
                "201": {"description": "Signed in.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SessionTokens"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"description": "Wrong, expired or used code.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "413": {"$ref": "#/components/responses/TooLarge"}, "422": {"$ref": "#/components/responses/Invalid"},
                "429": {"description": "The code had too many wrong tries; request a new one.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/auth/refresh": {
            "post": {
              "operationId": "refresh", "summary": "Trade a refresh token (once) for a new pair; a used one revokes its session.", "security": [],
              "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Refresh"}}}},
              "responses": {
                "200": {"description": "Refreshed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SessionTokens"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"}, "401": {"description": "Not a live refresh token.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "413": {"$ref": "#/components/responses/TooLarge"}, "422": {"$ref": "#/components/responses/Invalid"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/auth/signout": {
            "post": {
              "operationId": "signOut", "summary": "Revoke the caller's session (its tokens stop working at once).",
              "responses": {
                "204": {"description": "Signed out."},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/me/sessions": {
            "get": {
              "operationId": "listSessions", "summary": "The caller's live sessions, newest first.",
              "responses": {
                "200": {"description": "The sessions.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SessionList"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/me/sessions/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}}],
            "delete": {
              "operationId": "revokeSession", "summary": "Revoke one of the caller's sessions (e.g. a lost phone's).",
              "responses": {
                "204": {"description": "Revoked."},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "404": {"$ref": "#/components/responses/NotFound"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/ops/orders": {
            "get": {
              "operationId": "opsOrders", "summary": "Operators: orders in any state, newest first (at most 200).", "security": [{"operatorKey": []}],
              "parameters": [{"name": "status", "in": "query", "schema": {"type": "string", "enum": ["NEW", "ACCEPTED", "PICKING_UP", "REACHED_PICKUP", "STARTED_RIDE", "REACHED_DROPOFF", "COMPLETED", "CANCELLED"]}}],
              "responses": {
                "200": {"description": "The orders.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpsOrders"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "422": {"$ref": "#/components/responses/Invalid"}, "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/ops/drivers/positions": {
            "get": {
              "operationId": "opsPositions", "summary": "Operators: every driver's exact last position, newest first (at most 1000).", "security": [{"operatorKey": []}],
              "responses": {
                "200": {"description": "The positions.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpsPositions"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/ops/deliveries/dead": {
            "get": {
              "operationId": "opsDeadDeliveries", "summary": "Operators: dead-lettered deliveries, newest first (at most 200).", "security": [{"operatorKey": []}],
              "responses": {
                "200": {"description": "The deliveries.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpsDeliveries"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          },
          "/v1/ops/deliveries/{id}/retry": {
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "format": "int64"}}],
            "post": {
              "operationId": "opsRetryDelivery", "summary": "Operators: replay a dead delivery (as `ridesharing events retry`).", "security": [{"operatorKey": []}],
              "responses": {
                "202": {"description": "Replayed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OpsRetry"}}}},
                "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"},
                "404": {"description": "No such delivery.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "409": {"description": "The delivery is not dead-lettered.", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
                "default": {"$ref": "#/components/responses/Error"}
              }
            }
          }
        }
        """#
}
