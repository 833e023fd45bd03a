import Configuration
import Synchronization

/// Keeps the last access event of every key a ``SettingsReader`` reads.
///
/// swift-configuration's optional getters answer `nil` both for an unset key and for a value that does not parse
/// (the library reports the difference only to the reader's `AccessReporter`), so the recorder is how a bad value
/// becomes an error naming the setting instead of a silent default. The keys it saw also let a test check that the
/// code reads every declared setting.
final class SettingsAccessRecorder: AccessReporter, Sendable {
    private let events = Mutex<[String: AccessEvent]>([:])

    func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        self.events.withLock { $0[key] = event }
    }

    /// Why the last read of `key` found no usable value though a provider had one: a provider's or the conversion's
    /// error; `nil` when the key was simply unset.
    func failure(of key: String) -> (any Error)? {
        guard let event = self.events.withLock({ $0[key] }) else { return nil }
        for result in event.providerResults {
            if case .failure(let error) = result.result { return error }
        }
        return event.conversionError
    }

    /// The keys read so far.
    var keys: Set<String> { self.events.withLock { Set($0.keys) } }
}
