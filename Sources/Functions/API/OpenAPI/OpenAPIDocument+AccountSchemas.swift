extension OpenAPIDocument {
    /// The `components.schemas` of sign-in, sessions, profiles and the operators' routes (issue 17), merged into
    /// ``components`` when the document is built (kept apart so neither literal outgrows a file).
    static let accountSchemas = #"""
        {
            "CodeRequest": {
              "type": "object", "required": ["phone", "role"],
              "properties": {"phone": {"$ref": "#/components/schemas/Phone"}, "role": {"type": "string", "enum": ["rider", "driver"]}}
            },
            "CodeSent": {
              "type": "object", "required": ["expires_in"], "additionalProperties": false,
              "properties": {"expires_in": {"type": "integer"}}
            },
            "SignIn": {
              "type": "object", "required": ["phone", "code"],
              "properties": {"phone": {"$ref": "#/components/schemas/Phone"}, "code": {"type": "string", "pattern": "^[0-9]{6}$"}}
            },
            "Refresh": {
              "type": "object", "required": ["refresh_token"],
              "properties": {"refresh_token": {"type": "string"}}
            },
            "SessionTokens": {
              "type": "object", "additionalProperties": false,
              "required": ["access_token", "refresh_token", "expires_in", "token_type", "session_id", "user_id", "role"],
              "properties": {
                "access_token": {"type": "string"}, "refresh_token": {"type": "string"}, "expires_in": {"type": "integer"},
                "token_type": {"type": "string", "enum": ["Bearer"]}, "session_id": {"type": "string", "format": "uuid"},
                "user_id": {"type": "string", "format": "uuid"}, "role": {"type": "string", "enum": ["rider", "driver"]}
              }
            },
            "Session": {
              "type": "object", "required": ["id", "created_at", "refreshed_at", "expires_at", "current"], "additionalProperties": false,
              "properties": {
                "id": {"type": "string", "format": "uuid"}, "created_at": {"type": "string", "format": "date-time"},
                "refreshed_at": {"type": "string", "format": "date-time"}, "expires_at": {"type": "string", "format": "date-time"},
                "current": {"type": "boolean"}
              }
            },
            "SessionList": {
              "type": "object", "required": ["sessions"], "additionalProperties": false,
              "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}}
            },
            "Profile": {
              "type": "object", "required": ["name"],
              "properties": {
                "name": {"$ref": "#/components/schemas/Text200"},
                "device_id": {"$ref": "#/components/schemas/Text200"}, "car": {"$ref": "#/components/schemas/CarInput"}
              }
            },
            "OpsOrders": {
              "type": "object", "required": ["orders"], "additionalProperties": false,
              "properties": {"orders": {"type": "array", "items": {
                "type": "object", "required": ["id", "status", "rider_id", "created_at"], "additionalProperties": false,
                "properties": {
                  "id": {"type": "string", "format": "uuid"}, "status": {"type": "string"}, "rider_id": {"type": "string", "format": "uuid"},
                  "driver_id": {"type": "string", "format": "uuid"}, "created_at": {"type": "string", "format": "date-time"}
                }
              }}}
            },
            "OpsPositions": {
              "type": "object", "required": ["drivers"], "additionalProperties": false,
              "properties": {"drivers": {"type": "array", "items": {
                "type": "object", "required": ["driver_id", "available", "lat", "lng", "recorded_at"], "additionalProperties": false,
                "properties": {
                  "driver_id": {"type": "string", "format": "uuid"}, "name": {"type": "string"}, "device_id": {"type": "string"},
                  "available": {"type": "boolean"}, "lat": {"type": "number"}, "lng": {"type": "number"},
                  "recorded_at": {"type": "string", "format": "date-time"}
                }
              }}}
            },
            "OpsDeliveries": {
              "type": "object", "required": ["deliveries"], "additionalProperties": false,
              "properties": {"deliveries": {"type": "array", "items": {
                "type": "object", "required": ["id", "function", "table", "document_key", "attempt", "committed_at"], "additionalProperties": false,
                "properties": {
                  "id": {"type": "integer"}, "function": {"type": "string"}, "table": {"type": "string"},
                  "document_key": {"type": "string"}, "attempt": {"type": "integer"},
                  "committed_at": {"type": "string", "format": "date-time"}, "last_error": {"type": "string"}
                }
              }}}
            },
            "OpsRetry": {
              "type": "object", "required": ["id", "retried"], "additionalProperties": false,
              "properties": {"id": {"type": "integer"}, "retried": {"type": "boolean"}}
            }
        }
        """#
}
