import ArgumentParser
import Foundation
import HAP
import HAPController
import HAPTypes

/// One characteristic's outcome in `get`, `put` and `watch` JSON: its address and its value or status.
struct CharacteristicEntry: Encodable {
    var aid: UInt64
    var iid: UInt64
    var value: HAPValue?
    var status: Int?

    init(_ id: CharacteristicID, value: HAPValue? = nil, status: HAPStatus? = nil) {
        aid = id.accessoryID
        iid = id.instanceID
        self.value = value
        self.status = status.map(\.rawValue)
    }
}

/// The ids of `arguments` (`aid.iid`), each present in `database`; exits 2 for bad text, 3 for an unknown id.
func characteristicIDs(
    _ arguments: [String],
    in database: AccessoryDatabase,
    options: HAPOptions
) -> [CharacteristicID] {
    arguments.map { text in
        let id: CharacteristicID
        do throws(CommandLineArgumentError) {
            id = try CharacteristicID(argument: text)
        } catch {
            options.fail(error)
        }
        guard database.characteristic(at: id) != nil else { options.fail(.characteristicNotFound(id)) }
        return id
    }
}

/// Fails for the first unsuccessful status: 4 for missing privileges, 3 for an unknown id, 1 otherwise.
func failOnStatuses(_ statuses: [(CharacteristicID, HAPStatus)], verb: String, options: HAPOptions) {
    guard let (id, status) = statuses.first(where: { !$0.1.isSuccess }) else { return }
    let message = "the accessory refused to \(verb) characteristic \(id): \(status)"
    switch status {
    case .insufficientPrivileges, .insufficientAuthorization:
        options.fail(message + ". Use a controller with the right permissions", code: 4, kind: "notPermitted")
    case .resourceDoesNotExist:
        options.fail(message + ". List the accessories to see the ids", code: 3, kind: "notFound")
    default:
        options.fail(message + ". Check the value and try again", code: 1, kind: "refused")
    }
}

extension HAPCommand {
    /// `hearth hap accessories ACCESSORY`.
    struct Accessories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the accessory database: accessories, services and characteristics."
        )
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        func run() async throws {
            let target = options.target(accessory)
            let database = await options.withAccessory(target, interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                try await accessory.accessories()
            }
            if options.json {
                Output.json(database)
            } else {
                Output.text(AccessoryTree(catalog: try? TypeCatalog.shared()).render(database))
            }
        }
    }

    /// `hearth hap get ACCESSORY aid.iid…`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Read characteristics.")
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        @Argument(help: "Characteristics as aid.iid.")
        var characteristics: [String]

        func validate() throws {
            guard !characteristics.isEmpty else {
                throw ValidationError("name at least one characteristic as aid.iid.")
            }
        }

        func run() async throws {
            let target = options.target(accessory)
            let (ids, results) = await options.withAccessory(target, interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                let ids = characteristicIDs(characteristics, in: try await accessory.accessories(), options: options)
                return (ids, try await accessory.read(ids))
            }
            let outcomes = ids.map { id in (id, results[id] ?? .failure(.resourceDoesNotExist)) }
            if options.json {
                let entries = outcomes.map { id, result in
                    switch result {
                    case .success(let value): CharacteristicEntry(id, value: value)
                    case .failure(let status): CharacteristicEntry(id, status: status)
                    }
                }
                Output.json(["characteristics": entries])
            } else {
                for case (let id, .success(let value)) in outcomes {
                    Output.line("\(id) \(value.map(\.description) ?? "null")")
                }
            }
            let failures = outcomes.compactMap { id, result in
                if case .failure(let status) = result { (id, status) } else { nil }
            }
            failOnStatuses(failures, verb: "read", options: options)
        }
    }

    /// `hearth hap put ACCESSORY aid.iid=value…`.
    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write characteristics; each value is read as its characteristic's format asks."
        )
        @OptionGroup var options: HAPOptions
        @OptionGroup var resolve: ResolveOptions

        @Argument(help: "The accessory: a device ID or ADDRESS:PORT.")
        var accessory: String

        @Argument(help: "Assignments as aid.iid=value: true/false/1/0, numbers, text.")
        var assignments: [String]

        @Flag(help: "Ask for write responses (r:true) and print the value each characteristic answers with.")
        var response = false

        func validate() throws {
            guard !assignments.isEmpty else { throw ValidationError("give at least one aid.iid=value.") }
            for text in assignments {
                do throws(CommandLineArgumentError) {
                    _ = try CharacteristicID.assignment(text)
                } catch {
                    throw ValidationError(error.description)
                }
            }
        }

        func run() async throws {
            let target = options.target(accessory)
            let outcomes = await options.withAccessory(target, interfaces: resolve.interfaces) {
                accessory throws(HAPControllerError) in
                let database = try await accessory.accessories()
                var writes: [(CharacteristicID, HAPValue)] = []
                for text in assignments {
                    writes.append(Self.typed(text, in: database, options: options))
                }
                if response {
                    let results = try await accessory.writeWithResponse(writes)
                    return writes.map { id, _ in (id, results[id] ?? .failure(.resourceDoesNotExist)) }
                }
                let results = try await accessory.write(writes)
                return writes.map { id, _ -> (CharacteristicID, Result<HAPValue?, HAPStatus>) in
                    let status = results[id] ?? .resourceDoesNotExist
                    return (id, status.isSuccess ? .success(nil) : .failure(status))
                }
            }
            if options.json {
                let entries = outcomes.map { id, result in
                    switch result {
                    case .success(let value): CharacteristicEntry(id, value: value, status: .success)
                    case .failure(let status): CharacteristicEntry(id, status: status)
                    }
                }
                Output.json(["characteristics": entries])
            } else {
                for case (let id, .success(let value)) in outcomes {
                    Output.line(response ? "\(id) \(value.map(\.description) ?? "null")" : "\(id) ok")
                }
            }
            let failures = outcomes.compactMap { id, result in
                if case .failure(let status) = result { (id, status) } else { nil }
            }
            failOnStatuses(failures, verb: "write", options: options)
        }

        /// The id and typed value of one assignment; exits 2 or 3 when it does not fit the database.
        static func typed(
            _ text: String,
            in database: AccessoryDatabase,
            options: HAPOptions
        ) -> (CharacteristicID, HAPValue) {
            do throws(CommandLineArgumentError) {
                let (id, valueText) = try CharacteristicID.assignment(text)
                guard let characteristic = database.characteristic(at: id) else {
                    options.fail(.characteristicNotFound(id))
                }
                return (id, try HAPValue(argument: valueText, format: characteristic.format))
            } catch {
                options.fail(error)
            }
        }
    }
}
