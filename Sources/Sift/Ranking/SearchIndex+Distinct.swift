/// One result per group (`SearchCriteria.distinct`): of the matches that share a value of a
/// field — the cities of one country, the editions of one book — only the best-ranked shows,
/// where it would stand among all of them. The total counts groups; facets still count every
/// match, so a category button says how many items it holds, not how many groups.
///
/// An item without a value for the field is a group of its own: it is never hidden behind
/// another item that has none either.
extension SearchIndex {
  /// How a field's value is read per slot, from the index's own columns.
  enum Grouping: Sendable {
    case category
    case number(column: Int)
    case text(column: Int)
  }

  /// The grouping of the field `name` (any spelling `CatalogSchema.field(named:)` reads); nil
  /// when the index keeps no column of it.
  func grouping(of name: String) -> Grouping? {
    guard let field = schema.field(named: name) else { return nil }
    switch field.kind {
    case .category:
      return field.name == schema.categoryField ? .category : nil
    case .number:
      return numberFields.firstIndex { $0.name == field.name }.map { .number(column: $0) }
    case .text:
      return textFields.firstIndex { $0.name == field.name }.map { .text(column: $0) }
    }
  }

  /// `ordered`, the matches in order, less every match whose group an earlier one holds.
  ///
  /// - Complexity: O(*k*) in the matches; a text field copies each match's folded value once.
  func firstOfEachGroup(_ ordered: [RankedSlot], by grouping: Grouping) -> [RankedSlot] {
    var kept: [RankedSlot] = []
    switch grouping {
    case .category:
      var seen = Set<Int32>()
      for entry in ordered {
        // An item in several categories groups with those that hold the same list.
        let value = categories[Int(entry.slot)]
        if value == -1 || seen.insert(value).inserted { kept.append(entry) }
      }
    case .number(let column):
      var seen = Set<UInt64>(minimumCapacity: min(ordered.count, 1 << 16))
      numbers[column].withUnsafeBufferPointer { values in
        for entry in ordered {
          let value = values[Int(entry.slot)]
          // -0 and 0 are one value; NaN is no value.
          if value.isNaN || seen.insert((value + 0).bitPattern).inserted { kept.append(entry) }
        }
      }
    case .text(let column):
      // Per hash of a folded value, the slot of the first value with it; a different value
      // with the same hash (rare) goes among `others`. Bytes are compared only when hashes
      // meet, and nothing is copied.
      var first: [Int: Int32] = [:]
      first.reserveCapacity(min(ordered.count, 1 << 16))
      var others: [Int: [Int32]] = [:]
      columns[column].withUnsafeBytes { bytes, starts in
        func value(_ slot: Int32) -> UnsafeBufferPointer<UInt8> {
          UnsafeBufferPointer(rebasing: bytes[Int(starts[Int(slot)])..<Int(starts[Int(slot) + 1])])
        }
        for entry in ordered {
          let own = value(entry.slot)
          if own.isEmpty {
            kept.append(entry)
            continue
          }
          var hasher = Hasher()
          hasher.combine(bytes: UnsafeRawBufferPointer(own))
          let hash = hasher.finalize()
          if let holder = first[hash] {
            if value(holder).elementsEqual(own)
              || others[hash]?.contains(where: { value($0).elementsEqual(own) }) == true
            {
              continue
            }
            others[hash, default: []].append(entry.slot)
          } else {
            first[hash] = entry.slot
          }
          kept.append(entry)
        }
      }
    }
    return kept
  }

  /// How many groups `slots` fall in: the rows of a distinct search, counted before they are
  /// put in order.
  ///
  /// - Complexity: O(*k*); a category is a flag per value, others a set.
  func groupCount(_ slots: [Int32], by grouping: Grouping) -> Int {
    guard case .category = grouping else {
      return firstOfEachGroup(slots.map { RankedSlot(slot: $0, rank: 0) }, by: grouping).count
    }
    var seen = [Bool](repeating: false, count: categoryIDs.count)
    var seenLists = [Bool](repeating: false, count: storage.categorySets.count)
    var count = 0
    for slot in slots {
      let value = Int(categories[Int(slot)])
      if value == -1 {
        count += 1
      } else if value >= 0, !seen[value] {
        seen[value] = true
        count += 1
      } else if value < -1, !seenLists[-2 - value] {
        seenLists[-2 - value] = true
        count += 1
      }
    }
    return count
  }
}
