import Dispatch
import Foundation

/// A match: the slot of a matching item and its relevance tier (lower is better).
struct RankedSlot: Hashable, Sendable {
  var slot: Int32
  var tier: UInt8
}

/// Query terms compiled against an index: field names resolved to columns, needles to bytes.
struct MatchPlan {
  enum Condition {
    /// Needle in any of `columns` (or their initials), or a number column equal to `number`.
    case text(
      needle: [UInt8], columns: [Int], initials: Bool, number: Double?, numberColumns: [Int])
    case number(column: Int, NumberPredicate)
    case category(Int32)
    /// A condition on a field the index does not have: matches nothing.
    case never
  }

  struct Term {
    var isNegated: Bool
    var condition: Condition
  }

  /// Positive terms, most selective first, then negated ones.
  var terms: [Term]
  /// The category a category scope requires, if any.
  var requiredCategory: Int32?
  /// Stands for a category value no item has (-1 is "no category").
  static let noSuchCategory: Int32 = -2
  /// Needles of the positive text terms that compare against the title, for relevance tiers.
  var titleNeedles: [[UInt8]]
}

extension SearchIndex {
  func plan(_ resolved: ResolvedCriteria) -> MatchPlan {
    // Fields that unfielded terms search, from the scope.
    var textColumns = textFields.indices.filter { textFields[$0].isSearchable }
    var numberColumns = numberFields.indices.filter { numberFields[$0].isSearchable }
    var requiredCategory: Int32?
    switch resolved.scope?.filter {
    case .category(let value):
      requiredCategory = categoryIDs[TextFolding.fold(value)] ?? MatchPlan.noSuchCategory
    case .fields(let names):
      let keys = Set(names.map(CatalogSchema.fieldKey))
      textColumns = textFields.indices.filter {
        keys.contains(CatalogSchema.fieldKey(textFields[$0].name))
      }
      numberColumns = numberFields.indices.filter {
        keys.contains(CatalogSchema.fieldKey(numberFields[$0].name))
      }
    case .all, .none:
      break
    }

    var titleNeedles: [[UInt8]] = []
    var terms: [MatchPlan.Term] = []
    for term in resolved.allTerms {
      let condition: MatchPlan.Condition
      switch term.condition {
      case .text(let text):
        let needle = Array(text.needle.utf8)
        if let field = text.field {
          guard let column = textFields.firstIndex(where: { $0.name == field }) else {
            condition = .never
            break
          }
          condition = .text(
            needle: needle, columns: [column], initials: text.matchesInitials, number: nil,
            numberColumns: [])
        } else {
          condition = .text(
            needle: needle, columns: textColumns, initials: text.matchesInitials,
            number: text.number, numberColumns: numberColumns)
        }
        if !term.isNegated, text.field == nil || text.field == schema.titleField {
          titleNeedles.append(needle)
        }
      case .number(let field, let predicate):
        if let column = numberFields.firstIndex(where: { $0.name == field }) {
          condition = .number(column: column, predicate)
        } else {
          condition = .never
        }
      case .category(_, let value):
        condition = .category(categoryIDs[value] ?? MatchPlan.noSuchCategory)
      }
      terms.append(MatchPlan.Term(isNegated: term.isNegated, condition: condition))
    }
    // Longer needles are rarer: test them first; negations last.
    terms.sort { a, b in
      if a.isNegated != b.isNegated { return !a.isNegated }
      return a.selectivity > b.selectivity
    }
    return MatchPlan(terms: terms, requiredCategory: requiredCategory, titleNeedles: titleNeedles)
  }

  /// The slots of live items that match `resolved`, ranked, ties in catalog order.
  ///
  /// - Parameter candidates: when given, only these slots are considered (refinement).
  /// - Complexity: one scan of the searched columns for the first text term, then a check per
  ///   remaining candidate for each other term.
  func search(_ resolved: ResolvedCriteria, within candidates: [Int32]? = nil) -> [RankedSlot] {
    let plan = plan(resolved)
    var slots: [Int32]
    var remaining = plan.terms[...]
    if let candidates {
      slots = candidates.filter { isLive[Int($0)] }
    } else if let first = remaining.first, !first.isNegated, case .text = first.condition {
      slots = scan(first.condition)
      remaining = remaining.dropFirst()
    } else {
      slots = (0..<Int32(slotCount)).filter { isLive[Int($0)] }
    }
    if let category = plan.requiredCategory {
      slots.removeAll { categories[Int($0)] != category }
    }
    for term in remaining {
      slots.removeAll { matches(term.condition, slot: Int($0)) == term.isNegated }
    }
    return rank(slots, titleNeedles: plan.titleNeedles)
  }

  /// Whether one item matches `resolved` (used for single edits).
  func matches(_ resolved: ResolvedCriteria, slot: Int) -> Bool {
    matches(plan(resolved), slot: slot)
  }

  func matches(_ plan: MatchPlan, slot: Int) -> Bool {
    guard isLive[slot] else { return false }
    if let category = plan.requiredCategory, categories[slot] != category { return false }
    return plan.terms.allSatisfy { matches($0.condition, slot: slot) != $0.isNegated }
  }

  /// Live slots, in slot order, whose text matches a text condition: one scan per column.
  private func scan(_ condition: MatchPlan.Condition) -> [Int32] {
    guard
      case .text(let needle, let columnIndices, let initials, let number, let numberColumns) =
        condition
    else { return [] }
    var hits = SlotSet(capacity: slotCount)
    let searched =
      columnIndices.map { columns[$0] }
      + (initials ? columnIndices.compactMap { initialColumns[$0] } : [])
    // Each core scans its share of the slots of every column.
    let ranges = Parallel.ranges(
      count: slotCount, parts: Parallel.parts(for: slotCount, minimumPerPart: 50_000))
    let found = Parallel.map(parts: ranges.count) { part in
      var slots: [Int32] = []
      for column in searched {
        column.forEachSlot(containing: needle, in: ranges[part]) { slots.append(Int32($0)) }
      }
      return slots
    }
    for part in found { for slot in part { hits.insert(Int(slot)) } }
    if let number {
      for column in numberColumns {
        for (slot, value) in numbers[column].enumerated() where value == number {
          hits.insert(slot)
        }
      }
    }
    return hits.sorted.filter { isLive[Int($0)] }
  }

  private func matches(_ condition: MatchPlan.Condition, slot: Int) -> Bool {
    switch condition {
    case .text(let needle, let columnIndices, let initials, let number, let numberColumns):
      for column in columnIndices {
        if columns[column].slot(slot, contains: needle) { return true }
        if initials, let initialColumn = initialColumns[column],
          initialColumn.slot(slot, contains: needle)
        {
          return true
        }
      }
      if let number {
        for column in numberColumns where numbers[column][slot] == number { return true }
      }
      return false
    case .number(let column, let predicate):
      let value = numbers[column][slot]
      return !value.isNaN && predicate.matches(value)
    case .category(let id):
      return categories[slot] == id
    case .never:
      return false
    }
  }
}

extension MatchPlan.Term {
  /// A rough guess of how few items a term keeps: longer needles keep fewer.
  var selectivity: Int {
    switch condition {
    case .text(let needle, _, _, _, _): needle.count
    case .number, .category: 0
    case .never: Int.max
    }
  }
}
