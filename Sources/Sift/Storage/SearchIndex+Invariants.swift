#if DEBUG
extension SearchIndex {
  /// What is wrong with the index's parallel arrays, if anything: every per-slot array as long
  /// as the slots, the popularity order a permutation of them with its ranks its inverse, and
  /// each live id mapped to its own live slot. Empty when all hold. A debug build's check,
  /// called by the property tests after every edit, so that an edit path which forgets one
  /// array fails there rather than as a wrong row much later.
  package func invariantViolations() -> [String] {
    var found: [String] = []
    let slots = slotCount
    func expectLength(_ name: String, _ length: Int) {
      if length != slots { found.append("\(name): \(length) entries for \(slots) slots") }
    }
    expectLength("orderKeys", orderKeys.count)
    for (field, column) in zip(textFields, columns) {
      expectLength("column \(field.name)", column.slotCount)
    }
    for (field, initials) in zip(textFields, readingColumns) {
      if let initials { expectLength("initials of \(field.name)", initials.slotCount) }
    }
    for (field, summary) in zip(textFields, summaries) {
      guard let summary else { continue }
      expectLength("word starts of \(field.name)", summary.wordStarts.count)
      expectLength("value starts of \(field.name)", summary.valueStarts.count)
      expectLength("lengths of \(field.name)", summary.lengths.count)
    }
    for (field, numbers) in zip(numberFields, numbers) {
      expectLength("numbers of \(field.name)", numbers.count)
    }
    if !categories.isEmpty || !categoryIDs.isEmpty { expectLength("categories", categories.count) }
    if !popularityOrder.isEmpty {
      expectLength("popularity order", popularityOrder.count)
      expectLength("popularity ranks", popularityRanks.count)
      var seen = [Bool](repeating: false, count: slots)
      for (position, slot) in popularityOrder.enumerated() {
        guard seen.indices.contains(Int(slot)), !seen[Int(slot)] else {
          found.append("popularity order: slot \(slot) at \(position) is out of range or twice")
          continue
        }
        seen[Int(slot)] = true
        if popularityRanks.indices.contains(Int(slot)),
          popularityRanks[Int(slot)] != UInt32(position)
        {
          found.append(
            "popularity ranks: slot \(slot) has \(popularityRanks[Int(slot)]), not \(position)")
        }
      }
    }
    let live = (0..<slots).filter { isLive[$0] }
    if live.count != count { found.append("count \(count), but \(live.count) live slots") }
    // A line index has no ids: its slot is the line.
    guard ids.count > 0 || count == 0 else { return found }
    expectLength("ids", ids.count)
    for slot in live where slots == ids.count {
      let mapped = slotByID[ids[slot]]
      if mapped != slot {
        found.append("id of live slot \(slot) maps to \(mapped.map(String.init) ?? "nothing")")
      }
    }
    if slotByID.keys.count != live.count {
      found.append("\(slotByID.keys.count) ids mapped for \(live.count) live slots")
    }
    return found
  }
}
#endif
