import ArgumentParser
import Foundation
import HearthKit

import struct Commands.CommandContext
import struct Commands.CommandEngine
import struct Commands.Lexicon
import struct Commands.LexiconError

/// `hearth say "…"`: a sentence read against a home and carried out through the hub, or resolved against a home
/// file with no hub at all (docs/commands.md).
struct Say: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Control and ask the home in plain language: hearth say \"turn on the kitchen lights\".",
        discussion: """
            The hub reads the sentence with your rights and carries it out (--dry-run: only resolves it). With \
            --home FILE (what 'hearth home export' writes) no hub is used and sentences are only resolved: \
            --dry-run is then required. --batch reads one sentence per line on standard input and writes one JSON \
            object per line, in order. Exit status: 0 for control, query, scene and configure; 1 when the \
            sentence is refused (ambiguous, notUnderstood, notPermitted, invalidValue); with --batch, 0 when \
            every line was read.
            """
    )

    @Option(help: "The client configuration to read (default: $HEARTH_CONFIG, else ~/.config/hearth/config.json).")
    var config: String?

    @Option(
        help: """
            The home: by name or id on the hub (default: the primary home), or a home file to read without a hub \
            (an existing file, or a value with '/' or ending in '.json').
            """
    )
    var home: String?

    @Option(help: "The room you are in (\"turn off the light\", \"in here\"), by name.")
    var room: String?

    @Option(help: "With a home file: the words of another language, a lexicon JSON file (docs/commands.md).")
    var lexicon: String?

    @Flag(help: "Only resolve the sentence; change nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object per sentence on stdout instead of text.")
    var json = false

    @Flag(help: "Read one sentence per line on standard input; write one JSON object per line (implies --json).")
    var batch = false

    @Argument(help: "The sentence; its words may be given unquoted.")
    var words: [String] = []

    /// What one sentence got: the engine's result, or an error with its code and exit status.
    typealias Answer = Result<CommandResult, SayFailure>

    func run() async throws {
        let printsJSON = json || batch
        if batch && !words.isEmpty {
            fail("with --batch the sentences come on standard input, not as arguments", code: HomeExit.usage)
        }
        if !batch && words.isEmpty {
            fail("say something: hearth say \"turn on the kitchen lights\"", code: HomeExit.usage)
        }
        let answer: (String) async -> Answer
        if let home, let path = homeFilePath(home) {
            answer = resolver(forFile: path)
        } else {
            if lexicon != nil {
                fail("--lexicon works with a home file (--home FILE); the hub reads English", code: HomeExit.usage)
            }
            answer = await hubAnswerer(json: printsJSON)
        }
        if batch {
            await answerLines(answer)
            return
        }
        let text = words.joined(separator: " ")
        if let problem = Sentence.problem(with: text) { fail(problem, code: HomeExit.usage) }
        switch await answer(text) {
        case .success(let result):
            if printsJSON {
                FileHandle.standardOutput.write(Data(SayOutput.jsonLine(result).utf8))
            } else {
                Output.text(SayOutput.text(of: result))
            }
            if result.outcome.isRefusal { Foundation.exit(HomeExit.failure) }
        case .failure(let failure):
            fail(failure.message, code: failure.exit, kind: failure.code)
        }
    }

    // MARK: Where sentences are read

    /// The home file `text` names, or `nil` when it names a home of the hub; exits 3 when it looks like a path to
    /// a file that is not there.
    private func homeFilePath(_ text: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory), !isDirectory.boolValue {
            return text
        }
        if text.contains("/") || text.hasSuffix(".json") {
            fail("there is no home file at '\(text)'", code: HomeExit.notFound, kind: "notFound")
        }
        return nil
    }

    /// Reads the home file at `path` and makes one engine for every sentence; exits when the file cannot be used.
    private func resolver(forFile path: String) -> (String) async -> Answer {
        guard dryRun else {
            fail(
                "a home file cannot be carried out: it is read without a hub, so add --dry-run to resolve sentences "
                    + "against it, or leave out --home FILE to use the hub",
                code: HomeExit.usage
            )
        }
        let home: Home
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= HomeFile.maximumSize else {
                fail("\(path) is not a home file: it is larger than \(HomeFile.maximumSize >> 20) MiB", code: 2)
            }
            home = try HomeFile.decode(try Data(contentsOf: URL(fileURLWithPath: path))).home
        } catch let error as HomeFileError {
            fail("\(path) cannot be used: \(error.sentence)", code: HomeExit.usage)
        } catch {
            fail("\(path) cannot be read", code: HomeExit.failure)
        }
        let catalog: TypeCatalog
        do { catalog = try TypeCatalog.shared() } catch { fail("the type catalog cannot be read", code: 1) }
        let context = CommandContext(room: roomName(in: home), role: .owner)
        var words = Lexicon.english
        if let lexicon {
            guard let data = FileManager.default.contents(atPath: lexicon), data.count <= HomeFile.maximumSize else {
                fail("\(lexicon) cannot be read", code: HomeExit.usage)
            }
            do throws(LexiconError) { words = try Lexicon(json: data) } catch {
                fail("\(lexicon): \(error.sentence)", code: HomeExit.usage)
            }
        }
        let engine = CommandEngine(home: home, catalog: catalog, lexicon: words)
        return { text in .success(engine.interpret(text, context: context)) }
    }

    /// Connects to the hub and loads the home: each sentence is one call of the API.
    private func hubAnswerer(json: Bool) async -> (String) async -> Answer {
        var arguments = json ? ["--json"] : []
        if let config { arguments += ["--config", config] }
        if let home { arguments += ["--home", home] }
        let options: HubOptions
        do { options = try HubOptions.parse(arguments) } catch { fail("the options cannot be read", code: 2) }
        let session = await options.session()
        let (client, homeID, room, dryRun) = (session.client, session.home.id, roomName(in: session.home), dryRun)
        return { text in
            do throws(HearthError) {
                return .success(try await client.perform(text, inHome: homeID, room: room, dryRun: dryRun))
            } catch {
                return .failure(SayFailure(error))
            }
        }
    }

    /// The name of the room `--room` names in `home`; exits 2 naming the home's rooms when it names none.
    private func roomName(in home: Home) -> String? {
        guard let room else { return nil }
        let rooms = home.allRooms.map(\.name)
        let fits = { (name: String) in
            name.compare(room, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
        }
        let said = room.trimmingCharacters(in: .whitespaces)
        if let name = rooms.first(where: fits) ?? rooms.first(where: { Resolve.normalized($0) == said.lowercased() }) {
            return name
        }
        fail(
            "--room must be the name of a room of \(home.name): \(rooms.map { "'\($0)'" }.joined(separator: ", "))",
            code: HomeExit.usage
        )
    }

    // MARK: Batch

    /// Answers each line of standard input with one line of JSON, in order; a line that is too long, not UTF-8
    /// or not a sentence gets an error object.
    private func answerLines(_ answer: (String) async -> Answer) async {
        var reader = LineReader(maximumLength: Sentence.maximumBytes)
        var number = 0
        while true {
            let chunk = FileHandle.standardInput.availableData
            let lines = chunk.isEmpty ? reader.finish() : reader.add(chunk)
            // One write per chunk read: thousands of sentences a second, and a line at a time when typed.
            var output = ""
            for line in lines {
                number += 1
                output += SayOutput.jsonLine(await Self.answer(line, number: number, answer))
            }
            if !output.isEmpty { FileHandle.standardOutput.write(Data(output.utf8)) }
            if chunk.isEmpty { return }
        }
    }

    /// The JSON line for line `number` of standard input.
    private static func answer(
        _ line: LineReader.Line,
        number: Int,
        _ answer: (String) async -> Answer
    ) async -> any Encodable {
        let text: String
        switch line {
        case .tooLong:
            return SayError(line: number, text: nil, code: "invalidRequest", message: Sentence.tooLong)
        case .bytes(let bytes):
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                return SayError(line: number, text: nil, code: "invalidRequest", message: "the line is not UTF-8 text")
            }
            text = decoded.hasSuffix("\r") ? String(decoded.dropLast()) : decoded
        }
        if let problem = Sentence.problem(with: text) {
            return SayError(line: number, text: text, code: "invalidRequest", message: problem)
        }
        switch await answer(text) {
        case .success(let result): return result
        case .failure(let failure):
            return SayError(line: number, text: text, code: failure.code, message: failure.message)
        }
    }

    // MARK: Failing

    /// Exits with `message` on stderr (and `{"error": …}` on stdout with JSON output).
    private func fail(_ message: String, code: Int32, kind: String? = nil) -> Never {
        let sentence = message.hasSuffix(".") ? message : message + "."
        let name = kind ?? (code == HomeExit.usage ? "usage" : code == HomeExit.notFound ? "notFound" : "failure")
        if json || batch { Printer.json(ErrorBody(error: .init(code: name, message: sentence))) }
        Output.standardError("error: " + sentence)
        Foundation.exit(code)
    }
}

/// Why a sentence got no answer: the API's error code and sentence, and the exit status.
struct SayFailure: Error {
    /// The stable code (`invalidRequest`, `notFound`, …).
    let code: String
    /// A sentence for people.
    let message: String
    /// The exit status of a single sentence.
    let exit: Int32

    /// The failure of an API call.
    init(_ error: HearthError) {
        code = error.code
        message = error.message
        exit = HomeExit.status(of: error)
    }
}

/// The line `--batch` writes for a line it could not answer.
struct SayError: Encodable {
    /// The line's number on standard input, from 1.
    let line: Int
    /// The line, when it is text of a sensible length.
    let text: String?
    /// The code and sentence.
    let error: ErrorBody.Detail

    /// Makes the error of line `line`.
    init(line: Int, text: String?, code: String, message: String) {
        self.line = line
        self.text = text
        self.error = ErrorBody.Detail(code: code, message: message)
    }
}

/// The rules a sentence follows, the hub's: not blank, at most 1000 characters, no control characters.
enum Sentence {
    /// The most characters (Unicode scalars) of a sentence.
    static let maximumLength = 1000
    /// The most bytes of a line `--batch` keeps: 1000 characters of UTF-8 at most.
    static let maximumBytes = 4 * maximumLength
    /// The sentence for a sentence that is too long.
    static let tooLong = "the sentence must be at most \(maximumLength) characters"

    /// What is wrong with `text` as a sentence, or `nil`.
    static func problem(with text: String) -> String? {
        if text.unicodeScalars.count > maximumLength { return tooLong }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the sentence must not contain control characters (tabs and the like)"
        }
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return "the sentence must not be empty" }
        return nil
    }
}

extension CommandOutcome {
    /// Whether the sentence was refused: nothing was or would be done.
    var isRefusal: Bool {
        switch self {
        case .control, .query, .scene, .configure: false
        case .ambiguous, .notUnderstood, .notPermitted, .invalidValue: true
        }
    }
}
