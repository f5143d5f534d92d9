import HomeGraph
import HomeStore

extension HomeStore {
    /// Applies `operation` to the graph the store holds and appends it when it changed something, as the hub does;
    /// a refusal throws the graph's error and writes nothing.
    @discardableResult
    func apply(_ operation: HomeOperation) throws -> [HomeEvent] {
        var graph = self.graph
        let events = try graph.apply(operation)
        if !events.isEmpty { try append([operation], resulting: graph) }
        return events
    }

    /// Applies each operation in turn to the graph the store holds, skipping refused ones, and appends those that
    /// changed something in one transaction, as the hub does with accessory reports.
    func apply(contentsOf operations: [HomeOperation]) throws -> [Result<[HomeEvent], HomeGraphError>] {
        var graph = self.graph
        var written: [HomeOperation] = []
        let results = operations.map { operation in
            Result { () throws(HomeGraphError) in
                let events = try graph.apply(operation)
                if !events.isEmpty { written.append(operation) }
                return events
            }
        }
        try append(written, resulting: graph)
        return results
    }
}
