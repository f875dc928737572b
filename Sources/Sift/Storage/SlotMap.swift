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
        let made = SlotMap.table(of: state.pendingIDs)
        state.table = made
        state.pendingIDs = SlotIDs()
        return made
      }
    }
  }

  /// Each id's slot, the first where one repeats (an archive passed its checksum, so its ids
  /// are those of an index: distinct). Specialized for catalogs' ids: a catalog file's index is
  /// searched from other modules, where this would run as unspecialized generic code — 0.2 s
  /// of metadata lookups for the cities' 235,000 ids on the first edit after an open.
  @_specialize(where ID == ItemID)
  static func table(of ids: SlotIDs<ID>) -> [ID: Int] {
    var made: [ID: Int] = [:]
    made.reserveCapacity(ids.count)
    ids.forEach { slot, id in
      if made[id] == nil { made[id] = slot }
    }
    return made
  }

  private var storage: Storage

  init() { storage = Storage(table: [:], pendingIDs: SlotIDs()) }

  /// A map of `ids` (slot *i* holds `ids[i]`, all live, all distinct), built when first used.
  init(lazilyFrom ids: SlotIDs<ID>) { storage = Storage(table: nil, pendingIDs: ids) }

  /// A map of `ids`, slot *i* holding `ids[i]`.
  init(building ids: SlotIDs<ID>) {
    storage = Storage(table: Self.table(of: ids), pendingIDs: SlotIDs())
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
