import Commands
import Foundation
import HAPTypes
import HomeGraph
import Testing

@Suite struct EngineSmokeTests {
    @Test func anEmptyHomeUnderstandsNothingOutsideIt() throws {
        let room = Room(id: UUID(), name: "Default Room")
        let home = Home(id: UUID(), name: "Flat", roomForEntireHome: room)
        let engine = CommandEngine(home: home, catalog: try TypeCatalog.shared())
        let result = engine.interpret("set a timer for five minutes")
        #expect(result.outcome == .notUnderstood)
    }
}
