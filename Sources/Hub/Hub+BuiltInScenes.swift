import Foundation
import HomeGraph

extension Hub {
    /// Adds the built-in scenes (Wake Up, Leave Home, Arrive Home, Sleep) that homes made before homes had them
    /// lack, through the normal commit path; a home with a scene of that name already gets "Wake Up 2".
    func addMissingBuiltInActionSets() throws(HubError) {
        var ids = SystemIDGenerator()
        let operations = currentGraph.homes.flatMap { $0.addingMissingBuiltInActionSets(ids: &ids) }
        guard !operations.isEmpty else { return }
        try commitWhole(operations)
        logger.info("added the built-in scenes older homes lacked", metadata: ["scenes": "\(operations.count)"])
    }
}
