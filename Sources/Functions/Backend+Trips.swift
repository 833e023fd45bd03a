extension Backend.Configuration {
    /// Driver trips: where speeding is measured against, and the insurance program's qualification rule.
    public struct Trips: Sendable, Hashable {
        /// The posted limit in km/h that speeding is measured against where a location does not say its own.
        /// Default 50, the limit inside German towns (StVO §3), where the reference rides run.
        ///
        /// HyperTrack's locations carry no limit and the backend has no road map, so with HyperTrack this one
        /// configured limit is the source, and correctness never depends on more. A location that carries
        /// `data.posted_limit_kmh` (an optional extension: the local emulator sends its street's limit, and a
        /// map-matching source could) is measured against that instead, so the emulator's 30/50/70 streets are
        /// judged by their own limits. Values outside 5–300 are ignored.
        public var speedLimit: Double
        /// The qualification rule of the program.
        public var program: Program

        /// A driver qualifies with at least ``minimumTrips`` scored trips (not marked by feedback) that ended in
        /// the last ``windowDays`` days, whose average score is at least ``minimumAverageScore``. Qualification is
        /// computed on every read, not latched: a driver whose good trips age out of the window stops qualifying.
        public struct Program: Sendable, Hashable {
            /// Scored trips needed. Default 10.
            public var minimumTrips: Int
            /// The average score needed, 0–100. Default 80.
            public var minimumAverageScore: Int
            /// The window in days. Default 30.
            public var windowDays: Int

            /// Creates a rule with the documented defaults.
            public init(minimumTrips: Int = 10, minimumAverageScore: Int = 80, windowDays: Int = 30) {
                self.minimumTrips = minimumTrips
                self.minimumAverageScore = minimumAverageScore
                self.windowDays = windowDays
            }
        }

        /// Creates trip settings with the documented defaults.
        public init(speedLimit: Double = 50, program: Program = Program()) {
            self.speedLimit = speedLimit
            self.program = program
        }
    }
}
