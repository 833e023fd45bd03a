import TriggerRuntime

/// The accounts made before sign-in by code, by their phone as the sign-in compares it.
///
/// **Why.** A phone's first sign-in adopts the oldest unverified account of its number and role, comparing the number
/// with each such account's phone stripped of everything but digits and `+` (``normalizedPhone``: they were typed
/// before phones were checked). No index held that expression, so every first sign-in read `users` whole: in the
/// 32nd session's city set-up (14,000 sign-ins) 14,006 sequential scans of `users`, 98 million rows read, a cost
/// that grows with every account. The index holds only the unverified accounts (a verified one never enters it),
/// so it stays as small as the accounts left from before.
///
/// Additive, for a rolling upgrade: the previous release's statement reads the index too.
enum M0030UnverifiedPhones {
    /// An account's phone as a sign-in compares it; the index's expression, and the adoption's
    /// (``AccountStore/adoption(phone:role:)``) word for word, or the planner cannot use it.
    static let normalizedPhone = "regexp_replace(phone, '[^0-9+]', '', 'g')"

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0030_unverified_phones",
        statements: [
            """
            CREATE INDEX users_unverified_phone_idx ON users (role, \(Self.normalizedPhone))
                WHERE phone_verified_at IS NULL
            """
        ]
    )
}
