/// Tells waiters the server's base URL once it listens, or that it never will.
actor StartSignal {
    private var result: Result<String, HyperTrackEmulatorError>?
    private var waiters: [CheckedContinuation<Result<String, HyperTrackEmulatorError>, Never>] = []

    func resolve(_ value: Result<String, HyperTrackEmulatorError>) {
        guard result == nil else { return }
        result = value
        for waiter in waiters { waiter.resume(returning: value) }
        waiters.removeAll()
    }

    func wait() async throws(HyperTrackEmulatorError) -> String {
        let value: Result<String, HyperTrackEmulatorError>
        if let result {
            value = result
        } else {
            value = await withCheckedContinuation { waiters.append($0) }
        }
        return try value.get()
    }
}
