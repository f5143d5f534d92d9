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
        let buffer: ByteBuffer
        if let direct = Self.directText(of: event) {
            buffer = direct
        } else {
            guard let data = try? JSONEncoder.api.encode(ServerMessage.event(event)) else { return nil }
            buffer = ByteBuffer(bytes: data)
        }
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

    /// The `{"event": …}` text of a value change with a Boolean or whole-number value, written directly, byte for
    /// byte what `JSONEncoder.api` writes (sorted keys, ISO 8601 time); `nil` for any other event, which goes
    /// through the encoder.
    ///
    /// Value changes are most of the events (every accessory report, every write), and Foundation's encoder spends
    /// most of its time on generic containers: this is the path of a write to the page.
    static func directText(of event: HomeEvent) -> ByteBuffer? {
        guard case .characteristicValueChanged(let characteristic, let accessory, let value) = event.change else {
            return nil
        }
        guard let valueText = value.plainJSON else { return nil }
        var atText: String?
        if let at = event.at {
            guard let text = wholeSecondTime(at) else { return nil }
            atText = text
        }
        var text = "{\"event\":{"
        if let atText { text += "\"at\":\"\(atText)\"," }
        if let by = event.by { text += "\"by\":" + by.plainJSON + "," }
        text += "\"change\":{\"accessoryID\":\"\(accessory.canonicalString)\",\"characteristicID\":\""
        text += characteristic.canonicalString
        text += "\",\"type\":\"characteristicValueChanged\",\"value\":\(valueText)},\"homeID\":\""
        text += event.homeID.canonicalString
        text += "\",\"sequence\":\(event.sequence)}}"
        return ByteBuffer(string: text)
    }

    /// `date` as the API's ISO 8601 text (`2026-01-31T07:00:00Z`) when it is a whole second of the years
    /// 1970–9999, as the hub stamps its events; `nil` otherwise.
    static func wholeSecondTime(_ date: Date) -> String? {
        let interval = date.timeIntervalSince1970
        guard interval >= 0, interval < 253_402_300_800, interval.rounded(.down) == interval else { return nil }
        var seconds = time_t(interval)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : String(number) }
        let year = String(parts.tm_year + 1900)
        return
            "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
