extension RuntimeSchema {
    /// Migration 0009: one claim takes the high-priority functions' due deliveries first and fills the rest with the
    /// others', in one statement.
    ///
    /// A worker with high-priority functions (`FunctionOptions.priority`: the dispatch functions) claimed twice per
    /// cycle: its urgent functions first, then the others with the room left. After migration 0008 made each claim
    /// cheap, claims became PostgreSQL's most frequent statement: ~220 a second in the 14th session's chaos run at
    /// 20 bookings a second (~68 before 0008), 118 a second in its 4,000-ride run, where they were the largest
    /// statement by total time (66,202 calls at 0.86 ms mean); most of the urgent claims found nothing. This claim is
    /// the same pick as 0008's over every function the worker asks for, ordered by urgency before due time: the same
    /// deliveries as the two claims took, in one round trip and one statement.
    ///
    /// The four-argument `claim` of 0008 stays (a worker of the previous release keeps calling it during a rolling
    /// deploy).
    static let claimUrgentFirst: [String] = [claimFunction(holdingChains: true, perFunction: true, urgentFirst: true)]
}
