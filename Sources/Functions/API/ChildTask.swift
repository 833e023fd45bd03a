/// Runs `body` in a child task of its own and returns its result (cancellation reaches it as usual).
///
/// Why: a Swift task keeps every slab its async stack ever grew to until the task ends (the runtime's
/// `StackAllocator` reuses emptied slabs, it never frees them earlier). An event stream's body is written by its
/// connection's task, which stays suspended as long as the stream is open: a database read made there (a resume's
/// replay from the log) would keep its deepest frames allocated for the stream's whole life. The request's own
/// handling already runs in a child task (`Backend.mayOpenEventStream(path:)`); this is for the body's reads.
/// A task group's child is allocated on its own (an `async let` child borrows its parent's allocator), hence the
/// group.
func inChildTask<Value: Sendable>(
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask(operation: body)
        guard let value = try await group.next() else {
            // A group with one task added yields its result (or throws its error): this cannot be reached.
            throw CancellationError()
        }
        return value
    }
}
