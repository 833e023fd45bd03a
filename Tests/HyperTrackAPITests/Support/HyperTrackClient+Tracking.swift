import Functions
import HyperTrackAPI
import Logging

extension HyperTrackClient {
    /// The functions' adapter over this client: the tracking behaviour (idempotent completion, active trips of one
    /// device, Nearby polled to a deadline) lives in `Functions`, and these tests exercise it over HTTP.
    var tracking: HyperTrackTripTracking {
        HyperTrackTripTracking(client: self, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }
}
