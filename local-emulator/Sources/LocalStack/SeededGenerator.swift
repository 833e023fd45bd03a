/// SplitMix64: a small seeded generator, so that one `--seed` decides a simulation's positions, think times and
/// who declines or ignores (the standard library's generator cannot be seeded).
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    /// A generator of its own for `stream` (a driver, the riders), so that one stream's draws do not depend on how
    /// the others' tasks interleave.
    init(seed: UInt64, stream: UInt64) {
        var mixer = SeededGenerator(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        self.state = mixer.next()
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
