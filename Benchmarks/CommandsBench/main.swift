// Issue 18's plain-language benchmark, as a release executable (not a timed test):
//
//   cd Benchmarks && swift build -c release --product hearth-commands-bench
//   .build/release/hearth-commands-bench [--passes 5] [--sentences N] [--accessories 500] [--seed 18]
//       [--write-home FILE] [--write-sentences FILE] [--write-outcomes FILE] [--only SENTENCE]
//
// Builds a 500-accessory home the way the hub builds one, without sockets: four hearth-sim bridges
// (`SimulatedAccessories`, presets of lights, outlets, switches, fans, thermostats, locks, garage doors, window
// coverings, sensors and a security system), each accessory imported with `Accessory(importing:…)` through
// `HomeGraph.apply`, renamed ("Kitchen Ceiling Light") and put in one of 25 rooms of three zones, with 20 scenes
// (the four built-in ones among them) and four service groups. Then writes a sentence set of every kind
// docs/commands.md lists from the home's names, and measures in one run: the name index's build
// (`CommandEngine(home:catalog:)`, once, and the heap it keeps), each sentence's `interpret` alone on a monotonic
// clock over several passes (the last, warm pass reported: p50, p99, max), the same with the result encoded as JSON
// (what `hearth say --batch` adds per line), sentences per second in a loop with no clock reads, and the outcomes.
// Prints a table and one JSON line (`{"bench":"commands",…}`). `--only SENTENCE` instead reads that one sentence
// 1,000 times a pass (for `perf record`) and prints its latency. Deterministic: the same seed, the same home and
// sentences.
import Commands
import Foundation
import HAPTypes
import HomeGraph

/// Prints one line on stdout at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints a sentence on stderr and exits with status 2.
func fail(_ line: String) -> Never {
    FileHandle.standardError.write(Data(("hearth-commands-bench: " + line + "\n").utf8))
    exit(2)
}

/// CLOCK_MONOTONIC in nanoseconds.
@inline(__always) func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Bytes malloc has handed out and not had back (all arenas), from glibc's `malloc_info`; `nil` without it.
func heapBytes() -> Int? {
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_info") else { return nil }
    let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
    var buffer: UnsafeMutablePointer<CChar>?
    var size = 0
    guard let stream = open_memstream(&buffer, &size) else { return nil }
    _ = mallocInfo(0, stream)
    fclose(stream)
    guard let buffer else { return nil }
    defer { free(buffer) }
    let xml = String(cString: buffer)
    // The totals follow the last heap: free bytes in fast bins and the rest, mmapped bytes, bytes from the system.
    guard let end = xml.range(of: "</heap>", options: .backwards) else { return nil }
    let totals = xml[end.upperBound...]
    func value(_ prefix: String) -> Int? {
        guard let start = totals.range(of: prefix) else { return nil }
        let rest = totals[start.upperBound...]
        guard let open = rest.range(of: "size=\""), let close = rest[open.upperBound...].firstIndex(of: "\"") else {
            return nil
        }
        return Int(rest[open.upperBound..<close])
    }
    guard let fast = value("<total type=\"fast\""), let other = value("<total type=\"rest\""),
        let mmapped = value("<total type=\"mmap\""), let system = value("<system type=\"current\"")
    else { return nil }
    return system + mmapped - fast - other
}

/// The resident set size of this process in KiB, from /proc/self/status.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}

/// The `p` percentile (0...100) of sorted `values`, nearest rank.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// Microseconds with two decimals.
func us(_ value: Double) -> String { String(format: "%.2f", value) }

/// Milliseconds with three decimals.
func ms(_ value: Double) -> String { String(format: "%.3f", value) }

/// p50 / p99 / max / mean of a pass, in microseconds.
struct Latency {
    let p50: Double
    let p99: Double
    let p999: Double
    let max: Double
    let mean: Double

    init(nanoseconds: [UInt64]) {
        let sorted = nanoseconds.map { Double($0) / 1000 }.sorted()
        p50 = percentile(sorted, 50)
        p99 = percentile(sorted, 99)
        p999 = percentile(sorted, 99.9)
        max = sorted.last ?? .nan
        mean = sorted.reduce(0, +) / Double(Swift.max(sorted.count, 1))
    }

    var json: String {
        String(
            format: #"{"p50_us":%.2f,"p99_us":%.2f,"p999_us":%.2f,"max_us":%.2f,"mean_us":%.2f}"#,
            p50,
            p99,
            p999,
            max,
            mean
        )
    }
}

// MARK: Options

var passes = 5
var sentenceCount = 0
var accessories = 500
var seed: UInt64 = 18
var homePath: String?
var sentencesPath: String?
var outcomesPath: String?
var onlySentence: String?
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let option = arguments.removeFirst()
    if option == "--help" || option == "-h" {
        say(
            "usage: hearth-commands-bench [--passes N] [--sentences N] [--accessories N] [--seed N] "
                + "[--write-home FILE] [--write-sentences FILE] [--write-outcomes FILE] [--only SENTENCE]"
        )
        exit(0)
    }
    guard let value = arguments.first else { fail("\(option) needs a value.") }
    arguments.removeFirst()
    switch option {
    case "--passes":
        guard let number = Int(value), (1...1000).contains(number) else { fail("--passes is a number from 1 to 1000.") }
        passes = number
    case "--sentences":
        guard let number = Int(value), (1...1_000_000).contains(number) else {
            fail("--sentences is a number from 1 to 1,000,000.")
        }
        sentenceCount = number
    case "--accessories":
        guard let number = Int(value), (50...2000).contains(number) else {
            fail("--accessories is a number from 50 to 2000.")
        }
        accessories = number
    case "--seed":
        guard let number = UInt64(value) else { fail("--seed is a whole number.") }
        seed = number
    case "--write-home": homePath = value
    case "--write-sentences": sentencesPath = value
    case "--write-outcomes": outcomesPath = value
    case "--only": onlySentence = value
    default:
        fail(
            "unknown option \(option); the options are --passes, --sentences, --accessories, --seed, --write-home, --write-sentences and --write-outcomes."
        )
    }
}

// MARK: The home and the sentences

var started = monotonicNanoseconds()
let catalog: TypeCatalog
do { catalog = try TypeCatalog.shared() } catch { fail("the type catalog could not be read: \(error)") }
let catalogMilliseconds = Double(monotonicNanoseconds() - started) / 1e6

started = monotonicNanoseconds()
let bench: BenchHome
do {
    bench = try await buildHome(accessories: accessories, bridges: 4, seed: seed, catalog: catalog)
} catch {
    fail("the home could not be built: \(error)")
}
let homeMilliseconds = Double(monotonicNanoseconds() - started) / 1e6
let home = bench.home

var sentences = makeSentences(bench, seed: seed, minimum: max(sentenceCount, 2000))
let distinct = Set(sentences.map(\.text)).count
if sentenceCount > 0 { sentences = Array(sentences.prefix(sentenceCount)) }
let texts = sentences.map(\.text)

if let homePath {
    do {
        let data = try HomeFile(home: home, exportedAt: Date(timeIntervalSince1970: 1_767_225_600)).encoded()
        try data.write(to: URL(fileURLWithPath: homePath))
        guard try HomeFile.decode(data).home == home else { fail("the home file does not read back as the home.") }
    } catch {
        fail("the home file \(homePath) could not be written: \(error)")
    }
}
if let sentencesPath {
    do {
        try Data(texts.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: sentencesPath))
    } catch {
        fail("the sentences file \(sentencesPath) could not be written: \(error)")
    }
}

// MARK: The index

started = monotonicNanoseconds()
let engine = CommandEngine(home: home, catalog: catalog)
let indexMilliseconds = Double(monotonicNanoseconds() - started) / 1e6
// Memory: the heap an index keeps (a home shares its storage with the index's `home`), over 16 more kept at once.
var rebuilds: [Double] = []
var kept: [CommandEngine] = []
let heapBefore = heapBytes()
for _ in 0..<16 {
    let start = monotonicNanoseconds()
    kept.append(CommandEngine(home: home, catalog: catalog))
    rebuilds.append(Double(monotonicNanoseconds() - start) / 1e6)
}
let heapAfter = heapBytes()
let indexKiB = heapBefore.flatMap { before in heapAfter.map { ($0 - before) / kept.count / 1024 } }
precondition(kept.allSatisfy { $0.home.accessories.count == home.accessories.count })
kept.removeAll()
rebuilds.sort()

// MARK: One sentence, for a profiler

if let onlySentence {
    let result = engine.interpret(onlySentence)
    var samples: [UInt64] = []
    for _ in 0..<(passes * 1000) {
        let start = monotonicNanoseconds()
        let again = engine.interpret(onlySentence)
        samples.append(monotonicNanoseconds() - start)
        precondition(again.outcome == result.outcome)
    }
    let latency = Latency(nanoseconds: samples)
    say("\(result.outcome.rawValue) (\(result.actions?.count ?? 0) actions): \(result.message.prefix(160))")
    say("\(samples.count) runs: p50 \(us(latency.p50)) µs, p99 \(us(latency.p99)) µs, mean \(us(latency.mean)) µs")
    exit(0)
}

// MARK: Sentences, one at a time

var outcomeCounts: [CommandOutcome: Int] = [:]
var byCategory: [String: [CommandOutcome: Int]] = [:]
var passLatencies: [Latency] = []
var allPasses: [[UInt64]] = []
var warm: [UInt64] = []
var slowest: [(UInt64, String)] = []
var checksum = 0
var outcomeLines: [String] = []
for pass in 0..<passes {
    var samples = [UInt64](repeating: 0, count: texts.count)
    for (index, text) in texts.enumerated() {
        let start = monotonicNanoseconds()
        let result = engine.interpret(text)
        samples[index] = monotonicNanoseconds() - start
        checksum &+= result.message.utf8.count
        if pass == passes - 1 {
            outcomeCounts[result.outcome, default: 0] += 1
            byCategory[sentences[index].category, default: [:]][result.outcome, default: 0] += 1
            if outcomesPath != nil {
                outcomeLines.append(
                    [sentences[index].category, result.outcome.rawValue, text, result.message].joined(separator: "\t")
                )
            }
        }
    }
    passLatencies.append(Latency(nanoseconds: samples))
    allPasses.append(samples)
    if pass == passes - 1 { warm = samples }
}
let warmLatency = Latency(nanoseconds: warm)
// Each sentence's median over the passes: what the sentence costs, with most of the machine's noise taken out.
let medians = texts.indices.map { index in allPasses.map { $0[index] }.sorted()[allPasses.count / 2] }
let medianLatency = Latency(nanoseconds: medians)
slowest = zip(medians, texts).sorted { $0.0 > $1.0 }.prefix(8).map { ($0.0, $0.1) }

// The same with the result encoded as one JSON line, what `--batch` adds per sentence.
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
var encoded: [UInt64] = []
var encodedBytes = 0
for text in texts {
    let start = monotonicNanoseconds()
    let result = engine.interpret(text)
    let data = (try? encoder.encode(result)) ?? Data()
    encoded.append(monotonicNanoseconds() - start)
    encodedBytes += data.count + 1
}
let encodedLatency = Latency(nanoseconds: encoded)

// MARK: Sentences per second

var rates: [Double] = []
for _ in 0..<3 {
    let start = monotonicNanoseconds()
    for text in texts { checksum &+= engine.interpret(text).message.utf8.count }
    rates.append(Double(texts.count) / (Double(monotonicNanoseconds() - start) / 1e9))
}
rates.sort()
let rate = rates[rates.count / 2]

if let outcomesPath {
    do {
        try Data(outcomeLines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: outcomesPath))
    } catch {
        fail("the outcomes file \(outcomesPath) could not be written: \(error)")
    }
}

// MARK: Report

let services = home.accessories.reduce(0) { $0 + $1.services.count }
say(
    "home: \(home.accessories.count) accessories (4 bridges), \(services) services, \(home.rooms.count) rooms, "
        + "\(home.zones.count) zones, \(home.actionSets.count) scenes, \(home.serviceGroups.count) service groups; "
        + "built in \(ms(homeMilliseconds)) ms (catalog \(ms(catalogMilliseconds)) ms)"
)
say(
    "sentences: \(texts.count) (\(distinct) distinct), \(passes) passes, seed \(seed); "
        + "loadavg \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?")"
)
say("")
say("| measure | value |")
say("|---|---|")
say(
    "| name index build (once) | \(ms(indexMilliseconds)) ms (16 rebuilds: min \(ms(rebuilds[0])), median \(ms(rebuilds[8])) ms) |"
)
say("| name index memory | \(indexKiB.map { "\($0) KiB" } ?? "?") of heap per index (16 kept at once) |")
say(
    "| interpret, warm pass | p50 \(us(warmLatency.p50)) µs, p99 \(us(warmLatency.p99)) µs, p99.9 \(us(warmLatency.p999)) µs, max \(us(warmLatency.max)) µs, mean \(us(warmLatency.mean)) µs |"
)
say(
    "| interpret, each sentence's median of the passes | p50 \(us(medianLatency.p50)) µs, p99 \(us(medianLatency.p99)) µs, max \(us(medianLatency.max)) µs |"
)
say(
    "| interpret, first pass | p50 \(us(passLatencies[0].p50)) µs, p99 \(us(passLatencies[0].p99)) µs, max \(us(passLatencies[0].max)) µs |"
)
say(
    "| interpret + JSON line | p50 \(us(encodedLatency.p50)) µs, p99 \(us(encodedLatency.p99)) µs, max \(us(encodedLatency.max)) µs (\(encodedBytes / max(texts.count, 1)) bytes/line) |"
)
say("| process resident at the end | \(residentKiB() / 1024) MiB (home, index, sentences, results) |")
say("| sentences per second (in process) | \(Int(rate)) (median of 3 loops) |")
say("| target: p99 < 200 µs | \(warmLatency.p99 < 200 ? "met" : "NOT met") |")
say("")
say("outcomes: " + CommandOutcome.allCases.map { "\($0.rawValue) \(outcomeCounts[$0] ?? 0)" }.joined(separator: ", "))
say("by kind of sentence (outcomes of the warm pass):")
for category in byCategory.keys.sorted() {
    let counts = byCategory[category] ?? [:]
    let total = counts.values.reduce(0, +)
    let parts = counts.sorted { $0.value > $1.value }.map { "\($0.key.rawValue) \($0.value)" }
    say(
        "  \(category.padding(toLength: 20, withPad: " ", startingAt: 0)) \(String(total).padding(toLength: 5, withPad: " ", startingAt: 0)) \(parts.joined(separator: ", "))"
    )
}
say("slowest sentences (median of the passes):")
for (nanoseconds, text) in slowest { say("  \(us(Double(nanoseconds) / 1000)) µs  \(text)") }
let outcomesJSON = CommandOutcome.allCases.map { "\"\($0.rawValue)\":\(outcomeCounts[$0] ?? 0)" }.joined(separator: ",")
say(
    #"{"bench":"commands","accessories":\#(home.accessories.count),"services":\#(services),"rooms":\#(home.rooms.count),"#
        + #""sentences":\#(texts.count),"distinct":\#(distinct),"passes":\#(passes),"seed":\#(seed),"#
        + #""index_build_ms":\#(ms(indexMilliseconds)),"index_rebuild_median_ms":\#(ms(rebuilds[8])),"#
        + #""index_heap_kib":\#(indexKiB ?? -1),"interpret":\#(warmLatency.json),"#
        + #""interpret_median_of_passes":\#(medianLatency.json),"interpret_first_pass":\#(passLatencies[0].json),"interpret_json":\#(encodedLatency.json),"#
        + #""sentences_per_second":\#(Int(rate)),"outcomes":{\#(outcomesJSON)},"checksum":\#(checksum & 0xFFFF)}"#
)
