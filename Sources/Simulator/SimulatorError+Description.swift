extension SimulatorError: CustomStringConvertible {
    /// One sentence for people, as the CLI prints it: what happened, then what to do.
    public var description: String {
        switch self {
        case .unknownAccessory(let name):
            "no accessory named \"\(name)\". Run 'hearth-sim status' to see the accessories."
        case .unknownCharacteristic(let accessory, let characteristic):
            "\"\(accessory)\" has no characteristic \"\(characteristic)\". Run 'hearth-sim status' to see them."
        case .notSettable(let accessory, let characteristic):
            "\"\(characteristic)\" of \"\(accessory)\" is not a value the world can change."
        case .invalidValue(let accessory, let characteristic, let error):
            "\"\(accessory)\": \(error.message(naming: characteristic))."
        case .unknownEvent(let accessory, let event, let known):
            "\"\(accessory)\" does not know the event \"\(event)\"; it knows: \(known.joined(separator: ", "))."
        case .notAButton(let accessory):
            "\"\(accessory)\" has no button to press."
        case .nameTaken(let name):
            "an accessory named \"\(name)\" already exists. Choose another name."
        case .notABridge:
            "accessories can be added or removed only behind a bridge. Serve with --bridge."
        case .description(let error):
            "\(error)"
        }
    }
}

extension DescriptionError: CustomStringConvertible {
    /// One sentence for people naming the accessory and field at fault.
    public var description: String {
        switch self {
        case .invalidJSON(let reason): "the description is not valid JSON: \(reason)"
        case .invalidYAML(let line, let reason): "the description is not valid YAML at line \(line): \(reason)"
        case .catalogUnavailable(let error): "the type catalog could not be loaded: \(error)"
        case .unknownPreset(let accessory, let preset):
            "\(accessory): no preset named \"\(preset)\". docs/simulator.md lists the presets."
        case .invalidPresetRequest(let text): "\"\(text)\" is not NAME or NAME:COUNT with a known preset"
        case .unknownServiceType(let accessory, let field, let type):
            "\(accessory), \(field): no service type \"\(type)\""
        case .unknownCharacteristic(let accessory, let field, let name):
            "\(accessory), \(field): no characteristic \"\(name)\""
        case .characteristicNotInService(let accessory, let field, let characteristic, let service):
            "\(accessory), \(field): \(service) has no \(characteristic)"
        case .invalidValue(let accessory, let field, let error): "\(accessory), \(field): \(error)"
        case .outOfRange(let accessory, let field, let value, let allowed):
            "\(accessory), \(field): \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case .invalidCustomCharacteristic(let accessory, let field, let reason): "\(accessory), \(field): \(reason)"
        case .invalidBehaviour(let accessory, let field): "\(accessory), \(field): invalid behaviour setting"
        case .invalidName(let field): "\(field): a name must not be empty"
        case .invalidFault(let field, let error): "\(field): \(error)"
        case .duplicateAccessory(let name): "two accessories are called \"\(name)\""
        case .duplicateCharacteristic(let accessory, let field): "\(accessory), \(field): listed twice"
        case .tooManyAccessories(let count, let maximum): "\(count) accessories; a bridge serves at most \(maximum)"
        case .bridgeRequired(let count): "\(count) accessories need a bridge; add \"bridge\" or pass --bridge"
        case .invalidDatabase(let error): "the accessory database is invalid: \(error)"
        }
    }
}
