import Testing

@testable import SetupQR

struct QRCodeTerminalTests {
    let code: QRCode

    init() throws {
        code = try QRCode(encoding: "X-HM://0071WK4SM7OSX", mask: .pattern3)
    }

    /// Reads a drawing back into rows of modules, `true` where the terminal draws ink.
    func inkedRows(_ drawing: String) -> [[Bool]] {
        drawing.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
            let top = line.map { $0 == "█" || $0 == "▀" }
            let bottom = line.map { $0 == "█" || $0 == "▄" }
            return [top, bottom]
        }
    }

    @Test func drawsTwoModuleRowsPerLineWithTheQuietZone() {
        let lines = code.terminalString().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 13)  // 21 + 2 × 2 rows, rounded up to whole lines
        #expect(lines.allSatisfy { $0.count == 25 })
        #expect(lines.allSatisfy { $0.allSatisfy { " ▀▄█".contains($0) } })
        #expect(!code.terminalString().hasSuffix("\n"))
    }

    @Test func startsWithTheTopOfTheFinderPattern() {
        let lines = code.terminalString(quietZone: 0).split(separator: "\n")
        #expect(lines.first?.hasPrefix("█▀▀▀▀▀█") == true)
    }

    @Test func drawsEveryModuleAsInk() {
        let quietZone = 3
        let rows = inkedRows(code.terminalString(quietZone: quietZone))
        for y in -quietZone..<code.size + quietZone {
            for x in -quietZone..<code.size + quietZone {
                #expect(rows[y + quietZone][x + quietZone] == code[x, y], "module (\(x), \(y))")
            }
        }
        #expect(rows[rows.count - 1].allSatisfy { !$0 }, "nothing below the quiet zone")
    }

    @Test func invertedDrawsLightModulesAndTheQuietZoneAsInk() {
        let rows = inkedRows(code.terminalString(inverted: true))
        for y in -2..<code.size + 2 {
            for x in -2..<code.size + 2 {
                #expect(rows[y + 2][x + 2] == !code[x, y], "module (\(x), \(y))")
            }
        }
        #expect(rows[rows.count - 1].allSatisfy { !$0 }, "nothing below the quiet zone")
    }

    @Test func treatsANegativeQuietZoneAsNone() {
        #expect(code.terminalString(quietZone: -1) == code.terminalString(quietZone: 0))
    }
}
