import TriggerRuntime

/// `cube` and `earthdistance` (PostgreSQL contrib) for the indexed nearest-driver search.
///
/// `earthdistance` is not a trusted extension: the migrating role must be allowed to create it (a superuser, or
/// the extension pre-installed by one).
enum M0001Extensions {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0001_extensions",
        statements: [
            "CREATE EXTENSION IF NOT EXISTS cube",
            "CREATE EXTENSION IF NOT EXISTS earthdistance",
        ]
    )
}
