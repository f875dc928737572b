import Foundation
import GRDB
import Sift

/// The searches `sift serve --record-searches` counted (`SearchHistory`), kept in the catalog
/// file beside its items: `sift suggestions` and the terminal app read them after the server
/// stops. A table of their own, outside the change log: they change no search.
extension CatalogStore {
  /// The searches recorded in the file; none before any was.
  public func loadSearchHistory() throws(StoreError) -> SearchHistory {
    try read { db in
      guard try db.tableExists("searches") else { return SearchHistory() }
      let rows = try Row.fetchAll(db, sql: "SELECT tenant, text, count, found FROM searches")
      return SearchHistory(
        rows.map {
          SearchHistory.Entry(
            tenant: $0["tenant"], text: $0["text"], count: $0["count"], found: $0["found"])
        })
    }
  }

  /// Replaces the searches recorded in the file with `history`, in one transaction.
  public func saveSearchHistory(_ history: SearchHistory) throws(StoreError) {
    try write { db in
      try db.execute(
        sql: """
          CREATE TABLE IF NOT EXISTS searches (
            tenant TEXT NOT NULL, text TEXT NOT NULL, count INTEGER NOT NULL,
            found INTEGER NOT NULL)
          """)
      try db.execute(sql: "DELETE FROM searches")
      for entry in history.all {
        try db.execute(
          sql: "INSERT INTO searches (tenant, text, count, found) VALUES (?, ?, ?, ?)",
          arguments: [entry.tenant, entry.text, entry.count, entry.found])
      }
    }
  }
}
