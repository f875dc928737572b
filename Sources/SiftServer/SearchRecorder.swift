#if Server
import Sift

/// The finished searches a server records with `--record-searches` (`SearchHistory`), per
/// catalog: read from the catalog when first needed, counted in memory as searches are
/// answered, and written back by `save(_:)` (every few seconds, and when the server stops) —
/// never on a search's path.
final class SearchRecorder: Sendable {
  private struct Held {
    var history: SearchHistory
    /// Counted since the last save.
    var isDirty: Bool
  }

  private let held = Locked<[String: Held]>([:])

  /// The history of `catalog`, read from it the first time.
  func history(of catalog: any SearchCatalog) async throws(CatalogFailure) -> SearchHistory {
    if let known = held.withLock({ $0[catalog.name]?.history }) { return known }
    let read = try await catalog.searchHistory()
    return held.withLock { held in
      // A search recorded meanwhile was counted on an empty history: keep the one read.
      if held[catalog.name] == nil { held[catalog.name] = Held(history: read, isDirty: false) }
      return held[catalog.name]!.history
    }
  }

  /// Counts one finished search of `text` in `catalog`, in `tenant`'s frame.
  func record(
    _ text: String, found: Bool, tenant: String, in catalog: any SearchCatalog
  ) async throws(CatalogFailure) {
    _ = try await history(of: catalog)
    held.withLock { held in
      held[catalog.name]?.history.record(text, found: found, tenant: tenant)
      held[catalog.name]?.isDirty = true
    }
  }

  /// Writes every history counted since the last save to its catalog.
  func save(_ catalogs: [any SearchCatalog]) async {
    for catalog in catalogs {
      let dirty = held.withLock { held -> SearchHistory? in
        guard let entry = held[catalog.name], entry.isDirty else { return nil }
        held[catalog.name]?.isDirty = false
        return entry.history
      }
      guard let dirty else { continue }
      do {
        try await catalog.saveSearchHistory(dirty)
      } catch {
        // Kept for the next save.
        held.withLock { $0[catalog.name]?.isDirty = true }
      }
    }
  }
}
#endif
