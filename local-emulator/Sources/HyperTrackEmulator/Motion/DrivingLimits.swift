/// How the emulator's drivers drive, and how an injected manoeuvre breaks it: the numbers, and why.
///
/// A normal drive stays clearly inside the backend's detector thresholds (rapid acceleration 2.5 m/s², hard braking
/// 3 m/s², hard turn 4 m/s² lateral, speeding 5 km/h over the limit), so an un-manoeuvred trip has no events even
/// on 1-second locations; a manoeuvre goes clearly past one threshold and no other.
enum DrivingLimits {
    /// Acceleration from rest and after slowing, 1.5 m/s²: a brisk start from a light (0–50 km/h in about 9 s).
    static let acceleration = 1.5
    /// Braking for corners and the destination, 2 m/s²: an ordinary stop at a light (1–2 m/s²).
    static let braking = 2.0
    /// Side acceleration in corners, 2.5 m/s²: road design assumes 1–2 for comfort, 3 feels hurried.
    static let lateral = 2.5
    /// The radius of the path through a corner, 12 m: a car turning at a city intersection. Where the streets
    /// around a corner are short, the radius shrinks so the arc fits (and the driver slows more).
    static let cornerRadius = 12.0
    /// The slowest a driver takes a corner, 2 m/s: a tight corner whose radius `v²/r` would make slower still is
    /// walked through at this (it is below the detector's 5 m/s floor for turns either way).
    static let slowestCorner = 2.0
    /// Drivers cruise at 90% of a street's posted limit (27, 45, 63 km/h), never above the configured speed.
    static let limitShare = 0.9

    /// Hard brake: down to a fifth of the speed at 6 m/s² (an emergency stop is 8–10), held 2 s.
    static let hardBrake = 6.0
    /// Rapid acceleration: back up from a fifth of the speed at 4 m/s² (a sports car's full throttle).
    static let rapidAcceleration = 4.0
    /// Hard turn: a corner taken at the speed that gives 6 m/s² of side acceleration (0.6 g, tyres still grip).
    static let hardTurn = 6.0
    /// Seconds a manoeuvre's low speed is held.
    static let hold = 2.0
    /// A hard brake or rapid acceleration needs 5 m/s at least, so it changes the speed by 4 m/s (the detector
    /// wants 2) and a hard turn 6 m/s (the detector ignores bearings below 5).
    static let manoeuvreSpeed = 5.0
    /// A hard brake needs 7.5 m/s at least: its drop to a fifth then lasts a ``denseInterval`` (0.8 · 7.5 / 6 = 1 s)
    /// or more, so the reports a second apart at its start and one second in see the whole 6 m/s². Braking from
    /// 6.58 m/s (out of a corner) lasted 0.88 s, and the reports saw −5.26: the integration test that wants the
    /// rate (`EmulatorTripTests`) failed whenever the ride's timing put the brake there.
    static let hardBrakeSpeed = 7.5
    /// Seconds between the locations a driving device reports around a manoeuvre (see ``denseMargin``): 1, a
    /// phone's GPS rate. At the default 5 s step a 6 m/s² brake lasting under 2 s averages to less than the
    /// detector's 3 m/s² over the 5 s between two reports, and a corner's turn is spread over 5 s too, so a
    /// manoeuvre would not be visible at the step's rate.
    static let denseInterval = 1.0
    /// Seconds before and after a manoeuvre's sharp part with 1-second reports.
    static let denseMargin = 2.0
}
