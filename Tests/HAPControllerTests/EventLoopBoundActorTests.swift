import NIOCore
import NIOPosix
import Testing

@testable import HAPController

/// An actor on one event loop, counting what is done to it.
private actor Tally: EventLoopBoundActor {
    nonisolated let eventLoop: any EventLoop
    private(set) var total = 0
    private(set) var notes: [String] = []

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    func add(_ amount: Int) -> Int {
        total += amount
        return total
    }

    func note(_ text: String, times: Int) {
        for _ in 0..<times { notes.append(text) }
    }

    func take(_ amount: Int) throws(TallyError) -> Int {
        guard amount <= total else { throw .tooMuch(amount) }
        total -= amount
        return total
    }
}

private enum TallyError: Error, Equatable {
    case tooMuch(Int)
}

/// ``EventLoopBoundActor/runOnLoop(_:)`` runs the actor's code at once from its loop, seeing and changing its state.
@Suite struct EventLoopBoundActorTests {
    @Test func codeOnTheLoopRunsTheActorsCodeAtOnceAndSeesItsState() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let tally = Tally(eventLoop: loop)
        #expect(await tally.add(5) == 5)
        // From a job on the loop, as a channel handler or a scheduled task runs.
        let fromJob = try await loop.submit { () -> [Int] in
            let first = tally.runOnLoop { $0.add(1) }
            let second = tally.runOnLoop(10) { $0.add($1) }
            tally.runOnLoop("loop", 2) { $0.note($1, times: $2) }
            return [first, second]
        }.get()
        #expect(fromJob == [6, 16])
        #expect(await tally.total == 16)
        #expect(await tally.notes == ["loop", "loop"])
    }

    @Test func aTaskPreferringTheLoopsExecutorRunsTheActorsCodeAndItsErrorsComeBackTyped() async {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let tally = Tally(eventLoop: loop)
        let outcome = await Task(executorPreference: EventLoopTaskExecutor(loop)) { () -> [String] in
            var outcome: [String] = []
            outcome.append("\(tally.runOnLoop(3) { $0.add($1) })")
            do throws(TallyError) {
                outcome.append(
                    "\(try tally.runOnLoop(2) { (tally, amount) throws(TallyError) in try tally.take(amount) })"
                )
                _ = try tally.runOnLoop(4) { (tally, amount) throws(TallyError) in try tally.take(amount) }
            } catch {
                outcome.append("\(error)")
            }
            return outcome
        }.value
        #expect(outcome == ["3", "1", "tooMuch(4)"])
        #expect(await tally.total == 1)
    }

    @Test func callingItOffTheLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let tally = Tally(eventLoop: loop)
            // This test's thread is not the loop's.
            _ = tally.runOnLoop { $0.add(1) }
        }
    }
}
