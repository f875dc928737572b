/// Why an item stands where it does in the results (DESIGN §3, "Why it matched"): the values of
/// the relevance rules that placed it, where its best match is, and every highlighted range.
public struct MatchExplanation: Hashable, Sendable {
  /// Typos, exactness, attribute and position: the rules before popularity.
  public var rank: MatchRank
  /// The field of the best match (the attribute rule's field); nil when no text term ranks it.
  public var field: String?
  /// The value of `field` that holds the best match, as stored.
  public var value: String?
  /// The value that equals or starts with the query (the exactness rule's reason), and its
  /// field; nil below those levels.
  public var exactField: String?
  public var exactValue: String?
  /// The catalog's ranking field and the item's value of it (rule 4).
  public var rankingField: String?
  public var popularity: Double?
  /// The item's key in catalog order (rule 5): smaller comes first.
  public var catalogOrder: Int64
  /// Every field value with something highlighted, and the ranges.
  public var highlights: [Highlight]

  /// Highlighted ranges of one value of one field.
  public struct Highlight: Hashable, Sendable {
    public var field: String
    public var value: String
    public var ranges: [Range<String.Index>]

    /// The ranges as character offsets into `value`, for printing and JSON.
    public var characterRanges: [Range<Int>] {
      ranges.map {
        value.distance(
          from: value.startIndex, to: $0.lowerBound)..<value.distance(
            from: value.startIndex, to: $0.upperBound)
      }
    }
  }
}

extension FilteredCollection {
  /// Why the item at `row` matched and stands there.
  public func explanation(forRow row: Int) -> MatchExplanation? {
    guard rows.indices.contains(row), let item = index.item(id: rows[row]),
      let slot = index.slot(of: rows[row])
    else { return nil }
    let plan = index.plan(request)
    let analysis = index.analyse(slot, plan, nearSpellings: includesNearSpellings)
    let (field, value) = describe(analysis.field, offset: analysis.offset, slot: slot, item: item)
    let (exactField, exactValue) = describe(
      analysis.exactField, offset: analysis.exactOffset, slot: slot, item: item)
    let ranking = schema.rankingField?.field
    var highlights: [MatchExplanation.Highlight] = []
    for definition in schema.fields {
      guard let stored = item[definition.name] else { continue }
      let strings =
        definition.kind == .number ? [definition.display(stored)] : SearchIndex.strings(of: stored)
      for string in strings {
        let ranges = highlightRanges(in: string, field: definition.name, of: item)
        if !ranges.isEmpty {
          highlights.append(.init(field: definition.name, value: string, ranges: ranges))
        }
      }
    }
    return MatchExplanation(
      rank: analysis.rank, field: field, value: value, exactField: exactField,
      exactValue: exactValue, rankingField: ranking,
      popularity: ranking.flatMap { SearchIndex.number(of: item[$0]) },
      catalogOrder: index.orderKeys[slot], highlights: highlights)
  }
}

extension FilteredCollection {
  /// A field of the analysis by name, and the stored value at `offset` of its column.
  fileprivate func describe(
    _ field: SlotAnalysis.Field?, offset: Int?, slot: Int, item: Item
  ) -> (String?, String?) {
    switch field {
    case .text(let column):
      let definition = index.textFields[column]
      let values = SearchIndex.strings(of: item[definition.name])
      guard let offset else { return (definition.name, nil) }
      let valueIndex = index.columns[column].valueIndex(of: offset, inSlot: slot)
      return (definition.name, values.indices.contains(valueIndex) ? values[valueIndex] : nil)
    case .number(let column):
      let definition = index.numberFields[column]
      return (definition.name, item[definition.name].map(definition.display))
    case .none:
      return (nil, nil)
    }
  }
}

extension FoldedColumn {
  /// Which value of the slot holds byte `offset`: the 0 separators before it.
  func valueIndex(of offset: Int, inSlot slot: Int) -> Int {
    withUnsafeBytes { bytes, starts in
      var values = 0
      for index in Int(starts[slot])..<offset where bytes[index] == 0 { values += 1 }
      return values
    }
  }
}
