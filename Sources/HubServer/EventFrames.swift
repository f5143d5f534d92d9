import Foundation
import HearthAPI
import HomeGraph
import NIOCore
import Synchronization

/// Each change event's WebSocket text, encoded once and shared by every event connection that sends it.
///
/// An event is the same JSON for every recipient (`{"event": …}`), so the first session to send it encodes it and
/// the others reuse the bytes (a `ByteBuffer` is shared, not copied). The most recent `capacity` events are kept.
final class EventFrames: Sendable {
    private struct Key: Hashable {
        var homeID: UUID
        var sequence: UInt64
    }

    private struct State {
        var frames: [Key: ByteBuffer] = [:]
        var order: [Key] = []
        var next = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    /// Keeps the encoding of the last `capacity` events.
    init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    /// The `{"event": …}` text of `event`, encoded now or earlier; `nil` when it cannot be encoded.
    func text(of event: HomeEvent) -> ByteBuffer? {
        let key = Key(homeID: event.homeID, sequence: event.sequence)
        if let cached = state.withLock({ $0.frames[key] }) { return cached }
        guard let data = try? JSONEncoder.api.encode(ServerMessage.event(event)) else { return nil }
        let buffer = ByteBuffer(bytes: data)
        state.withLock { state in
            guard state.frames[key] == nil else { return }
            state.frames[key] = buffer
            if state.order.count < capacity {
                state.order.append(key)
            } else {
                state.frames[state.order[state.next]] = nil
                state.order[state.next] = key
                state.next = (state.next + 1) % capacity
            }
        }
        return buffer
    }
}
