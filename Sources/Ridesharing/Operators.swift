import ArgumentParser
import Foundation
import Functions
import LocalStack
import Logging
import PostgresNIO

/// `ridesharing operators create|list|revoke`: the API keys of the operational routes (`/v1/ops/…`).
struct Operators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke operators' API keys for the operational routes (/v1/ops/...).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an operator and print their key (once: only its hash is stored)."
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        @Argument(help: "The operator's name (lowercase letters, digits, '.', '_', '-'; at most 63).")
        var name: String

        func validate() throws {
            guard OperatorStore.isValid(name: self.name) else {
                throw ValidationError(
                    "NAME must be lowercase letters, digits, '.', '_' or '-' (at most 63): \(self.name)"
                )
            }
        }

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let name = self.name
            let key = try await Events.withClient(configuration, logger: logger) { client in
                try await OperatorStore(client: client, logger: logger).create(name: name)
            }
            guard let key else {
                throw ValidationError(
                    "operator \(name) exists; revoke it first (`ridesharing operators revoke \(name)`)"
                )
            }
            print(key)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List operators (never their keys).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let operators = try await Events.withClient(configuration, logger: logger) { client in
                try await OperatorStore(client: client, logger: logger).list()
            }
            let format = ISO8601DateFormatter()
            print("NAME\tCREATED\tREVOKED")
            for item in operators {
                print(
                    "\(item.name)\t\(format.string(from: item.createdAt))\t\(item.revokedAt.map(format.string) ?? "-")"
                )
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an operator's key (at once).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var local: LocalStackOption

        @Argument(help: "The operator's name.")
        var name: String

        func run() async throws {
            let (configuration, logger) = try await Events.setUp(self.global, self.local)
            let name = self.name
            let revoked = try await Events.withClient(configuration, logger: logger) { client in
                try await OperatorStore(client: client, logger: logger).revoke(name: name)
            }
            guard revoked else { throw ValidationError("no operator \(name) with a working key") }
            print("revoked \(name)")
        }
    }
}
