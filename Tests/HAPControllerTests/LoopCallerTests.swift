import HAP
import HAPTypes
import NIOCore
import Synchronization
import TestFixtures
import Testing

@testable import HAPController

/// Callers on the accessory's event loop (preferring ``PairedAccessory/taskExecutor``) have their requests written
/// without a hop onto the actor; these check that this path answers, queues, times out and closes as it should.
@Suite struct LoopCallerTests {
    @Test func readsAndWritesFromTheLoopBeforeAndAfterConnecting() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let identity = newIdentity()
        let paired = try await bridge.pairedClient(identity: identity)
        await paired.close()
        // Not yet connected: the first request from the loop finds no session and connects in its turn.
        let client = bridge.client(for: paired.record, identity: identity)
        defer { Task { await client.close() } }
        let lamps = [
            try await bridge.id(ShortType.on, accessoryID: 2),
            try await bridge.id(ShortType.on, accessoryID: 3),
            try await bridge.id(ShortType.on, accessoryID: 4),
        ]
        try await withinLimit(on: client.taskExecutor) { () async throws in
            #expect(client.eventLoop.inEventLoop)
            #expect(try await client.read([lamps[0]])[lamps[0]] == .success(.bool(false)))
            #expect(try await client.write([(lamps[0], .bool(true))]) == [lamps[0]: .success])
            for _ in 0..<20 {
                #expect(
                    try await client.read(lamps) == [
                        lamps[0]: .success(.bool(true)), lamps[1]: .success(.bool(false)),
                        lamps[2]: .success(.bool(false)),
                    ]
                )
            }
        }
        // The first read connected in a task; the write and the twenty reads after it were written at once.
        let connection = await client.connection
        #expect(await connection.requestsWrittenAtOnce == 21)
    }

    @Test func concurrentCallersOnAndOffTheLoopEachGetTheirOwnAnswer() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let lamps = [
            try await bridge.id(ShortType.on, accessoryID: 2),
            try await bridge.id(ShortType.on, accessoryID: 3),
            try await bridge.id(ShortType.on, accessoryID: 4),
        ]
        #expect(try await client.write([(lamps[1], .bool(true))]) == [lamps[1]: .success])
        let expected: [CharacteristicID: Result<HAPValue?, HAPStatus>] = [
            lamps[0]: .success(.bool(false)), lamps[1]: .success(.bool(true)), lamps[2]: .success(.bool(false)),
        ]
        // Sixteen callers at once, half on the loop: all but one find the turn taken and wait in the queue.
        let answers = try await withinLimit(on: nil) {
            try await withThrowingTaskGroup(of: [CharacteristicID: Result<HAPValue?, HAPStatus>].self) { group in
                for index in 0..<16 {
                    let lamp = lamps[index % lamps.count]
                    group.addTask(executorPreference: index.isMultiple(of: 2) ? client.taskExecutor : nil) {
                        var last: [CharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
                        for _ in 0..<10 { last = try await client.read([lamp]) }
                        return last
                    }
                }
                var answers: [[CharacteristicID: Result<HAPValue?, HAPStatus>]] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
        }
        #expect(answers.count == 16)
        for answer in answers {
            let (id, result) = try #require(answer.first)
            #expect(answer.count == 1)
            #expect(expected[id] == result)
        }
        await client.close()
    }

    @Test func aSilentAccessoryTimesOutALoopCallerAndTheQueuedOneGoesOn() async throws {
        let lamp = CharacteristicID(accessoryID: 1, instanceID: 10)
        let accessory = try await ScriptedAccessory(ScriptedAccessory.Script(silentReadsOnConnections: [0]))
        defer { Task { await accessory.stop() } }
        let client = accessory.client()
        _ = try await client.accessories()
        // The first read goes out at once and is never answered; the second waits for the turn.
        let first = Task(executorPreference: client.taskExecutor) { () -> String in
            do throws(HAPControllerError) {
                _ = try await client.read([lamp])
                return "answered"
            } catch {
                return error == .timedOut ? "timed out" : "\(error)"
            }
        }
        let second = Task(executorPreference: client.taskExecutor) { () -> String in
            try? await Task.sleep(for: .milliseconds(100))
            let value = try? await client.read([lamp])[lamp]
            return value == .success(.bool(true)) ? "read" : "failed"
        }
        // Bounded waits: a turn never given back fails the test instead of hanging it.
        let outcomes = [await value(of: first, within: .seconds(120)), await value(of: second, within: .seconds(120))]
        #expect(outcomes == ["timed out", "read"])
        // The timeout dropped the first connection; the second read made a new one.
        #expect(accessory.counter.value.withLock { $0 } == 2)
        await client.close()
    }

    @Test func closingEndsALoopCallersRequestInFlightAndTheOneQueuedBehindIt() async throws {
        let lamp = CharacteristicID(accessoryID: 1, instanceID: 10)
        let accessory = try await ScriptedAccessory(ScriptedAccessory.Script(silentReadsOnConnections: [0]))
        defer { Task { await accessory.stop() } }
        // A request timeout far longer than the test, so only the close can end the requests, however slow the
        // machine.
        let client = accessory.client(requestTimeout: .seconds(300))
        _ = try await client.accessories()
        func read() async -> String {
            do throws(HAPControllerError) {
                _ = try await client.read([lamp])
                return "answered"
            } catch {
                return error == .closed ? "closed" : "\(error)"
            }
        }
        // The first read is written and never answered; the second waits for the turn.
        let first = Task(executorPreference: client.taskExecutor) { await read() }
        let second = Task(executorPreference: client.taskExecutor) {
            try? await Task.sleep(for: .milliseconds(50))
            return await read()
        }
        try await Task.sleep(for: .milliseconds(300))
        await client.close()
        let outcomes = [await value(of: first, within: .seconds(120)), await value(of: second, within: .seconds(120))]
        #expect(outcomes == ["closed", "closed"])
    }

    @Test func aGoneAccessoryIsReportedUnreachableToALoopCaller() async throws {
        let bridge = try await SimulatedBridge.start()
        let client = try await bridge.pairedClient()
        let on = try await bridge.id(ShortType.on, accessoryID: 2)
        await bridge.stop()
        try await withinLimit(on: client.taskExecutor) { () async throws in
            await #expect(throws: HAPControllerError.unreachable(host: "127.0.0.1", port: bridge.port)) {
                try await client.read([on])
            }
        }
        // No session was ever up: the failed connection itself reported it (ConnectionEvent.unreachable).
        #expect(await client.isReachable == false)
        await client.close()
    }

    @Test func aClosedClientRefusesLoopCallers() async throws {
        let bridge = try await SimulatedBridge.start()
        defer { Task { await bridge.stop() } }
        let client = try await bridge.pairedClient()
        let on = try await bridge.id(ShortType.on, accessoryID: 2)
        await client.close()
        try await withinLimit(on: client.taskExecutor) { () async throws in
            #expect(client.eventLoop.inEventLoop)
            await #expect(throws: HAPControllerError.closed) { try await client.read([on]) }
            await #expect(throws: HAPControllerError.closed) { try await client.write([(on, .bool(true))]) }
        }
        await #expect(throws: HAPControllerError.closed) { try await client.read([on]) }
    }
}

/// Opens once: the first caller of ``open()`` gets `true`.
private final class Gate: Sendable {
    private let isOpen = Mutex(false)

    /// Opens the gate; `true` for the first caller only.
    func open() -> Bool {
        isOpen.withLock { isOpen in
            defer { isOpen = true }
            return !isOpen
        }
    }
}

/// A test's body that did not finish in its time.
private struct Overran: Error {}

/// Runs `body` in a task preferring `executor`; throws ``Overran`` after `duration` instead of hanging the test.
private func withinLimit<T: Sendable>(
    _ duration: Duration = .seconds(120),
    on executor: (any TaskExecutor)?,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let task = Task(executorPreference: executor) { () -> Result<T, any Error> in
        do { return .success(try await body()) } catch { return .failure(error) }
    }
    guard let result = await value(of: task, within: duration) else { throw Overran() }
    return try result.get()
}

/// The value of `task` if it finishes within `duration`, else `nil` (the task is left running).
private func value<T: Sendable>(of task: Task<T, Never>, within duration: Duration) async -> T? {
    let gate = Gate()
    return await withUnsafeContinuation { continuation in
        let timer = Task {
            try? await Task.sleep(for: duration)
            if gate.open() { continuation.resume(returning: nil) }
        }
        Task {
            let value = await task.value
            if gate.open() {
                continuation.resume(returning: value)
                timer.cancel()
            }
        }
    }
}
