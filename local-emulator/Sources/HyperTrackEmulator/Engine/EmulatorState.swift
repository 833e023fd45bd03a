import Foundation

/// Everything the emulator knows; what `--export` writes and `--import` reads.
struct EmulatorState: Codable, Sendable {
    static let formatVersion = 1

    var formatVersion = EmulatorState.formatVersion
    var now: Date
    var nextTickAt: Date
    var random: SplitMix64
    var devices: [String: DeviceRecord] = [:]
    var deviceOrder: [String] = []
    var trips: [String: TripRecord] = [:]
    var tripOrder: [String] = []
    var geofences: [String: GeofenceRecord] = [:]
    var geofenceOrder: [String] = []
    var nearby: [String: NearbyRequestRecord] = [:]
}
