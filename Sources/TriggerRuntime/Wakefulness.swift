/// Whether this worker has told the capture triggers to skip their NOTIFY (migration 0004): it does while its
/// claims are paced, since it claims every `claimInterval` anyway and a NOTIFY costs every writer a wait on a
/// database-wide lock through its commit's WAL flush.
enum Wakefulness {
    /// Not declared: writers notify.
    case asleep
    /// Declared, last renewed at `renewed`.
    case awake(renewed: ContinuousClock.Instant)
    /// Withdrawn at `since`. Claims go on every `claimInterval` until every writer that may have skipped its
    /// NOTIFY has ended (`horizon`), then once more. Without a horizon (the withdrawal failed), until the
    /// declaration has expired.
    case settling(horizon: Int64?, since: ContinuousClock.Instant)
}
