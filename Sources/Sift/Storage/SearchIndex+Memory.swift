/// What an index holds beyond the items themselves, for the memory target in Benchmarks/README.md (folded
/// text at most 1.2× the raw UTF-8, at most 16 bytes an item besides).
package struct IndexMemory: Sendable, Hashable {
  /// The UTF-8 length of every text value of every live item, as given (counted by the
  /// collection, which holds the elements; 0 from an index alone).
  package var rawTextBytes: Int
  /// The folded buffers: folded text, one separator byte a value, initial-consonant keys.
  package var foldedTextBytes: Int
  /// Per slot, where each folded column's values start (the text's own per-item cost).
  package var textOffsetBytesPerSlot: Int
  /// Per slot, everything that is not text bytes: the offsets above, liveness, catalog order,
  /// categories and numbers.
  package var bytesPerSlot: Int
  /// The id → slot map, an estimate (a Swift dictionary of string keys), per item.
  package var idMapBytesPerItem: Int
  package var slots: Int
}

extension SearchIndex {
  /// Counts the index's buffers (their lengths, not the capacity reserved behind them).
  package var memory: IndexMemory {
    let folded =
      columns.reduce(0) { $0 + $1.bytes.count }
      + readingColumns.reduce(0) { $0 + ($1?.bytes.count ?? 0) }
    let offsetColumns = columns.count + readingColumns.count { $0 != nil }
    let offsets = offsetColumns * MemoryLayout<UInt32>.stride
    let perSlot =
      offsets + MemoryLayout<Bool>.stride
      + MemoryLayout<Int64>.stride + MemoryLayout<Int32>.stride + MemoryLayout<ID>.stride
      + numbers.count * MemoryLayout<Double>.stride
    // A native dictionary entry: key, value, and the load factor's spare room (3/4 full at most);
    // ids longer than 15 UTF-8 bytes also have their own heap storage.
    let entry = MemoryLayout<ID>.stride + MemoryLayout<Int>.stride
    let longIDs = slotByID.keys.reduce(0) { total, id in
      guard let id = id as? ItemID, id.rawValue.utf8.count > 15 else { return total }
      return total + 32 + id.rawValue.utf8.count
    }
    let idMap = count == 0 ? 0 : (entry * 4 / 3) + longIDs / count
    return IndexMemory(
      rawTextBytes: 0, foldedTextBytes: folded, textOffsetBytesPerSlot: offsets,
      bytesPerSlot: perSlot, idMapBytesPerItem: idMap,
      slots: slotCount)
  }
}
