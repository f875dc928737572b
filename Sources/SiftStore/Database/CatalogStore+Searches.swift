import Foundation
import GRDB
import Sift

/// The searches `sift serve --record-searches` counted (`SearchHistory`), kept in the catalog
/// file beside its items: `sift suggestions` and the terminal app read them after the server
/// stops. A table of their own, outside the change log: they change no search.
extension CatalogStore {
  /// The searches recorded in the file; none before any was. (A file of an older Sift keeps
  /// them in `searches`, read until the first save moves them.)
  public func loadSearchHistory() throws(StoreError) -> SearchHistory {
    try read { db in
      let table =
        try db.tableExists("search_history")
        ? "search_history" : try db.tableExists("searches") ? "searches" : nil
      guard let table else { return SearchHistory() }
      let spellings = table == "search_history" ? ", spellings" : ""
      let rows = try Row.fetchAll(
        db, sql: "SELECT tenant, text, count, found\(spellings) FROM \(table)")
      return SearchHistory(
        rows.map { row in
          let counted = (row["spellings"] as String?).flatMap {
            try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8))
          }
          return SearchHistory.Entry(
            tenant: row["tenant"], text: row["text"], count: row["count"], found: row["found"],
            spellings: counted ?? [:])
        })
    }
  }

  /// Writes what changed of the recorded searches (`SearchHistory.takeChanges()`), in one
  /// transaction: the entries written, the ones gone removed — never the whole history again.
  public func saveSearchChanges(_ changes: SearchHistory.Changes) throws(StoreError) {
    try write { db in
      if try !db.tableExists("search_history") {
        try db.execute(
          sql: """
            CREATE TABLE search_history (
              tenant TEXT NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL,
              count INTEGER NOT NULL, found INTEGER NOT NULL, spellings TEXT,
              PRIMARY KEY (tenant, key))
            """)
        // An older file's searches move over once.
        if try db.tableExists("searches") {
          for row in try Row.fetchAll(db, sql: "SELECT tenant, text, count, found FROM searches") {
            let text: String = row["text"]
            try db.execute(
              sql: """
                INSERT INTO search_history (tenant, key, text, count, found) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (tenant, key) DO UPDATE SET count = count + excluded.count
                """,
              arguments: [
                row["tenant"] as String, TextFolding.phraseKey(text), text, row["count"] as Int,
                row["found"] as Bool,
              ])
          }
          try db.execute(sql: "DROP TABLE searches")
        }
      }
      for entry in changes.written {
        let spellings = String(
          decoding: (try? JSONEncoder().encode(entry.spellings)) ?? Data("{}".utf8), as: UTF8.self)
        try db.cachedStatement(
          sql: """
            INSERT INTO search_history (tenant, key, text, count, found, spellings)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (tenant, key) DO UPDATE SET text = excluded.text,
              count = excluded.count, found = excluded.found, spellings = excluded.spellings
            """
        ).execute(
          arguments: [entry.tenant, entry.key, entry.text, entry.count, entry.found, spellings])
      }
      for place in changes.removed {
        try db.cachedStatement(sql: "DELETE FROM search_history WHERE tenant = ? AND key = ?")
          .execute(arguments: [place.tenant, place.key])
      }
    }
  }
}
