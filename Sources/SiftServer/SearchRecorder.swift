#if Server
import Foundation
import Sift

/// The finished searches a server records with `--record-searches` (`SearchHistory`), per
/// catalog: read from the catalog when first needed, counted in memory as searches are
/// answered, and written back by `save(_:)` (every few seconds, and when the server stops) —
/// never on a search's path.
final class SearchRecorder: Sendable {
  private struct Held {
    var history: SearchHistory
  }

  private let held = Locked<[String: Held]>([:])
  /// Anonymous searches are counted at most this many a minute per catalog: anyone's text
  /// becomes a suggestion, so a script cannot fill a catalog's history at its own pace.
  static let anonymousPerMinute = 120
  private let anonymousRate = RateLimiter()

  /// The history of `catalog`, read from it the first time.
  func history(of catalog: any SearchCatalog) async throws(CatalogFailure) -> SearchHistory {
    if let known = held.withLock({ $0[catalog.name]?.history }) { return known }
    let read = try await catalog.searchHistory()
    return held.withLock { held in
      // A search recorded meanwhile was counted on an empty history: keep the one read.
      if held[catalog.name] == nil { held[catalog.name] = Held(history: read) }
      return held[catalog.name]!.history
    }
  }

  /// Counts one finished search of `text` in `catalog`, in `tenant`'s frame; an anonymous
  /// one (`anonymous`) only within `anonymousPerMinute`.
  func record(
    _ text: String, found: Bool, tenant: String, anonymous: Bool = false,
    in catalog: any SearchCatalog, now: Date = Date()
  ) async throws(CatalogFailure) {
    if anonymous,
      anonymousRate.take(catalog.name, perMinute: Self.anonymousPerMinute, now: now) != nil
    {
      return
    }
    _ = try await history(of: catalog)
    held.withLock { held in
      held[catalog.name]?.history.record(text, found: found, tenant: tenant)
    }
  }

  /// Writes what each history counted since the last save to its catalog: the entries that
  /// changed, never the whole history again.
  func save(_ catalogs: [any SearchCatalog]) async {
    for catalog in catalogs {
      let changes = held.withLock { held -> SearchHistory.Changes? in
        held[catalog.name]?.history.takeChanges()
      }
      guard let changes, !changes.isEmpty else { continue }
      do {
        try await catalog.saveSearchChanges(changes)
      } catch {
        // Kept for the next save.
        held.withLock { $0[catalog.name]?.history.restore(changes) }
      }
    }
  }
}
#endif
