import Foundation
import GRDB

/// One acknowledged operation: its number in the store's log and the sealed JSON of the `HomeOperation`.
struct OperationRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "operation"

    /// The operation's number, from 1, one more for every operation that changed the graph.
    var sequence: Int64
    /// ChaChaPoly's combined box (nonce, ciphertext, tag) of the operation's JSON.
    var payload: Data

    /// The table's columns.
    enum Columns {
        static let sequence = Column(CodingKeys.sequence)
        static let payload = Column(CodingKeys.payload)
    }

    /// Inserts one row; arguments: sequence, payload.
    static let insertSQL = "INSERT INTO operation (sequence, payload) VALUES (?, ?)"
}

/// The whole graph after the operation numbered `sequence`, sealed JSON.
struct SnapshotRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "snapshot"

    /// The number of the last operation the snapshot includes (0: none).
    var sequence: Int64
    /// ChaChaPoly's combined box of the `HomeGraph` JSON.
    var payload: Data

    /// The table's columns.
    enum Columns {
        static let sequence = Column(CodingKeys.sequence)
        static let payload = Column(CodingKeys.payload)
    }
}

/// The schema's migrations, append-only: a shipped migration is never edited, a new one is appended.
enum Schema {
    /// Every migration Hearth knows, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Tables and columns are named as strings, never through the record types, so later edits cannot change v1.
        migrator.registerMigration("v1") { db in
            try db.create(table: "operation") { table in
                table.primaryKey("sequence", .integer)
                table.column("payload", .blob).notNull()
            }
            try db.create(table: "snapshot") { table in
                table.primaryKey("sequence", .integer)
                table.column("payload", .blob).notNull()
            }
        }
        // v2: a row here means the store was closed cleanly; opening deletes it (HomeStore.markOpen).
        migrator.registerMigration("v2") { db in
            try db.create(table: "cleanStop") { table in
                table.primaryKey("id", .integer)
            }
        }
        return migrator
    }
}
