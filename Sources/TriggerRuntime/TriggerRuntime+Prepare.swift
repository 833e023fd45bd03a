import Logging
import PostgresNIO

extension TriggerRuntime {
    /// Applies the runtime's migrations followed by `migrations`, then installs the capture triggers of `registry`.
    /// - Parameters:
    ///   - client: A running client.
    ///   - registry: The functions whose triggers to install.
    ///   - migrations: The application's migrations (applied after the runtime's).
    ///   - channel: The NOTIFY channel the workers listen on.
    ///   - logger: Logs applied migrations.
    public static func prepare(
        client: PostgresClient,
        registry: FunctionRegistry,
        migrations: [Migration] = [],
        channel: String = Configuration.defaultChannel,
        logger: Logger
    ) async throws {
        try await self.prepare(
            client: client,
            bindings: registry.bindings,
            migrations: migrations,
            channel: channel,
            logger: logger
        )
    }

    /// Applies the runtime's migrations followed by `migrations`, then installs the capture triggers of `bindings`
    /// (which need no constructed function).
    /// - Parameters:
    ///   - client: A running client.
    ///   - bindings: The functions whose triggers to install.
    ///   - migrations: The application's migrations (applied after the runtime's).
    ///   - channel: The NOTIFY channel the workers listen on.
    ///   - logger: Logs applied migrations.
    public static func prepare(
        client: PostgresClient,
        bindings: [FunctionBinding],
        migrations: [Migration] = [],
        channel: String = Configuration.defaultChannel,
        logger: Logger
    ) async throws {
        try await Migrator(client: client, logger: logger).migrate(Self.migrations + migrations)
        try await TriggerInstaller(client: client, logger: logger).install(bindings, channel: channel)
    }
}
