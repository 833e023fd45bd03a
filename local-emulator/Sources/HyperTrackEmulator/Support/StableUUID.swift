/// Name-based UUIDs (a hash spread over 128 bits), so marker ids are stable across runs.
enum StableUUID {
    static func make(_ name: String) -> String {
        var generator = SplitMix64(seed: StableHash.fnv1a(name))
        return generator.uuid()
    }
}
