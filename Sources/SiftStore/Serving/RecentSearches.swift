import Sift

/// The last searches answered on one state of a catalog, so that a keystroke refines the search
/// of the keystroke before it — as the app does — instead of scanning every item again, and a
/// search asked again (the same prefix typed by many people) is answered from memory.
///
/// Entries hold the searched collection: a value that shares the catalog's index and holds the
/// ranked matches. Least recently used entries go first; an edit empties it (`StoredCatalog`).
struct RecentSearches: Sendable {
  private var entries: [SearchRequest: (collection: FilteredCollection, used: Int)] = [:]
  private var clock = 0
  let capacity: Int

  init(capacity: Int) { self.capacity = max(capacity, 0) }

  /// The collection that answered `input`, or the nearest one to refine: same scope, tokens
  /// sort and place, text that the input's text extends ("san" for "san f"). Else, under a base
  /// filter (a tenant's), one searched under the same filter: searched afresh from it, its count
  /// of the filter's rows is kept rather than counted again. Nil when none.
  mutating func start(for input: SearchRequest) -> (collection: FilteredCollection, exact: Bool)? {
    clock += 1
    if let found = entries[input] {
      entries[input]?.used = clock
      return (found.collection, true)
    }
    var best: (key: SearchRequest, length: Int)?
    for key in entries.keys
    where key.scopeIndex == input.scopeIndex && key.tokens == input.tokens
      && key.sort == input.sort && key.near == input.near && key.base == input.base
      && !key.text.isEmpty
      && input.text.hasPrefix(key.text) && key.text.count > best?.length ?? 0
    {
      best = (key, key.text.count)
    }
    guard let best, let entry = entries[best.key] else {
      guard !input.base.isEmpty,
        let sameBase = entries.first(where: { $0.key.base == input.base })
      else { return nil }
      return (sameBase.value.collection, false)
    }
    entries[best.key]?.used = clock
    return (entry.collection, false)
  }

  mutating func remember(_ collection: FilteredCollection, for input: SearchRequest) {
    guard capacity > 0 else { return }
    clock += 1
    entries[input] = (collection, clock)
    while entries.count > capacity,
      let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key
    {
      entries[oldest] = nil
    }
  }

  mutating func removeAll() { entries.removeAll() }
}
