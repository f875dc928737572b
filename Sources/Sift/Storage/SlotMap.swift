import Foundation

/// Each live id's slot. An index read from an archive fills it on the first lookup rather than
/// on open: hashing every id was a sixth of a one-shot `sift search`, which never looks one up.
///
/// A value type like the index holding it: copies share the table until one of them is edited.
struct SlotMap<ID: Hashable & Sendable>: Sendable {
  /// The table, or the ids (by slot, all live) to build it from; behind a lock because copies
  /// of an index are searched from several threads and any of them may build it.
  private final class Storage: Sendable {
    let state: Locked<(table: [ID: Int]?, pendingIDs: SlotIDs<ID>)>

    init(table: [ID: Int]?, pendingIDs: SlotIDs<ID>) {
      state = Locked((table, pendingIDs))
    }

    var built: [ID: Int] {
      state.withLock { state in
        if let table = state.table { return table }
        var made: [ID: Int] = [:]
        made.reserveCapacity(state.pendingIDs.count)
        // An archive passed its checksum, so its ids are those of an index: distinct.
        for (slot, id) in state.pendingIDs.enumerated() where made[id] == nil { made[id] = slot }
        state.table = made
        state.pendingIDs = SlotIDs()
        return made
      }
    }
  }

  private var storage: Storage

  init() { storage = Storage(table: [:], pendingIDs: SlotIDs()) }

  /// A map of `ids` (slot *i* holds `ids[i]`, all live, all distinct), built when first used.
  init(lazilyFrom ids: SlotIDs<ID>) { storage = Storage(table: nil, pendingIDs: ids) }

  /// A map of `ids`, slot *i* holding `ids[i]`.
  init(building ids: SlotIDs<ID>) {
    storage = Storage(
      table: Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) }),
      pendingIDs: SlotIDs())
  }

  subscript(id: ID) -> Int? {
    get { storage.built[id] }
    set {
      var table = storage.built
      if !isKnownUniquelyReferenced(&storage) {
        storage = Storage(table: nil, pendingIDs: SlotIDs())
      }
      storage.state.withLock { state in
        // Released first so that the dictionary below is uniquely held and changes in place.
        state.table = nil
        table[id] = newValue
        state.table = table
      }
    }
  }

  /// The ids mapped (building the table if it was not yet).
  var keys: Dictionary<ID, Int>.Keys { storage.built.keys }
}
