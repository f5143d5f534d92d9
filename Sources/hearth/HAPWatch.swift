import ArgumentParser
import DNSSD
import Foundation
import HAP
import HAPController
import HAPTypes
import NIOPosix

extension HAPCommand {
    /// `hearth hap watch ACCESSORY aid.iid… [--count N] [--timeout S]`.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to characteristics and print each change as it arrives.",
            discussion: """
                Prints one line per changed value, `aid.iid value`, or with --json one JSON object per line: \
                {"watching": [...]} once subscribed, {"aid", "iid", "value"} per change and {"reachable": bool} \
                when the connection is lost or made again (the session reconnects and re-subscribes by itself). \
                Exits 0 after --count changes or at --timeout without --count; 5 when --timeout comes before \
                --count changes.
                """
        )
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        @Argument(help: "Characteristics as aid.iid.")
        var characteristics: [String]

        @Option(help: "Stop after this many changes.")
        var count: Int?

        @Option(help: "Stop after this many seconds.")
        var timeout: Double?

        func validate() throws {
            guard !characteristics.isEmpty else {
                throw ValidationError("name at least one characteristic as aid.iid.")
            }
            if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
            if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be more than 0 seconds.") }
        }

        /// Why watching ended.
        enum End: Sendable {
            case counted
            case timedOut
            case finished
        }

        func run() async throws {
            let target = options.target(accessory)
            let record = await options.record(for: target)
            let accessory = PairedAccessory(record: record, identity: await options.identity())
            let ids: [CharacteristicID]
            do throws(HAPControllerError) {
                let database: AccessoryDatabase
                do {
                    database = try await accessory.accessories()
                } catch .unreachable where !resolve.interfaces.isEmpty {
                    // The stored address failed: look the accessory up over mDNS and store where it is now.
                    guard await options.relocate(accessory, interfaces: resolve.interfaces) else {
                        throw .unreachable(host: record.host, port: record.port)
                    }
                    database = try await accessory.accessories()
                    await options.update(saving: await accessory.currentRecord)
                }
                ids = characteristicIDs(characteristics, in: database, options: options)
                let statuses = try await accessory.subscribe(ids)
                failOnStatuses(
                    ids.map { ($0, statuses[$0] ?? .resourceDoesNotExist) },
                    verb: "send events for",
                    options: options
                )
            } catch {
                await accessory.close()
                options.fail(error)
            }
            if options.json {
                Output.json(["watching": ids.map(\.description)])
            } else {
                Output.standardError("watching \(ids.map(\.description).joined(separator: " "))")
            }
            let browser = await follow(accessory, deviceID: record.deviceID)
            let end = await watch(accessory, ids: Set(ids))
            await browser?.stop()
            await accessory.close()
            if end == .timedOut, let count {
                options.fail(
                    "timed out before \(count) changes arrived. Give a longer --timeout",
                    code: 5,
                    kind: "timedOut"
                )
            }
        }

        /// With `--interface`, browses mDNS for the accessory and hands its new addresses and configuration numbers
        /// to the client, which moves its session and reads the changed database; `nil` without `--interface`.
        private func follow(_ accessory: PairedAccessory, deviceID: String) async -> AccessoryBrowser? {
            guard !resolve.interfaces.isEmpty else { return nil }
            let addresses = resolve.interfaces.compactMap { IPv4Address($0) }
            guard addresses.count == resolve.interfaces.count else {
                options.fail("give --interface as IPv4 addresses, for example 192.168.1.20", code: 2, kind: "usage")
            }
            let browser = AccessoryBrowser(interfaces: addresses, group: MultiThreadedEventLoopGroup.singleton)
            do throws(MDNSError) {
                try await browser.start()
            } catch {
                options.fail("mDNS could not start (\(error)). Check the --interface addresses", code: 1, kind: "mdns")
            }
            let events = browser.events
            Task {
                for await event in events {
                    switch event {
                    case .found(let found), .updated(let found):
                        guard found.deviceID == deviceID else { continue }
                        await accessory.noteConfigurationNumber(found.configurationNumber)
                        if let host = found.host { await accessory.noteAddress(host: host, port: found.port) }
                    case .removed:
                        continue
                    }
                }
            }
            return browser
        }

        /// Prints events until `count` changes, the timeout or the end of the session.
        private func watch(_ accessory: PairedAccessory, ids: Set<CharacteristicID>) async -> End {
            let json = options.json
            let limit = count
            let seconds = timeout
            return await withTaskGroup(of: End?.self) { group in
                group.addTask {
                    var seen = 0
                    for await event in accessory.events {
                        guard case .valuesChanged(let changes) = event else {
                            if case .invalidEvent(let error) = event { Output.standardError("warning: \(error)") }
                            continue
                        }
                        for change in changes where ids.contains(change.id) {
                            if json {
                                Output.json(CharacteristicEntry(change.id, value: change.value))
                            } else {
                                Output.line("\(change.id) \(change.value.map(\.description) ?? "null")")
                            }
                            seen += 1
                            if let limit, seen >= limit { return .counted }
                        }
                    }
                    return .finished
                }
                group.addTask {
                    var wasLost = false
                    for await reachable in accessory.reachability {
                        if json {
                            Output.json(["reachable": reachable])
                        } else if !reachable {
                            Output.standardError("accessory unreachable; reconnecting")
                        } else if wasLost {
                            Output.standardError("accessory reachable again; subscriptions renewed")
                        }
                        wasLost = wasLost || !reachable
                    }
                    return nil
                }
                if let seconds {
                    group.addTask {
                        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                        return Task.isCancelled ? nil : .timedOut
                    }
                }
                var end = End.finished
                while let next = await group.next() {
                    if let next {
                        end = next
                        break
                    }
                }
                group.cancelAll()
                return end
            }
        }
    }
}
