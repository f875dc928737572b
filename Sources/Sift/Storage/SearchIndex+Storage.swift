/// The storage as the other folders read it: every property here is read-only, so matching,
/// ranking, typos and facets can look at the slots but only `SlotStorage`'s own methods change
/// them.
extension SearchIndex {
  /// Per slot, the item's id (empty for a line index, whose slot is the line number).
  var ids: SlotIDs<ID> { storage.ids }
  var isLive: LiveSlots { storage.isLive }
  /// Catalog order: ties in relevance are broken by it.
  var orderKeys: CatalogOrderKeys { storage.orderKeys }
  var slotByID: SlotMap<ID> { storage.slotByID }
  /// Counts compactions: `RankedMatches` made before one name slots that no longer exist.
  var layout: Int { storage.layout }
  /// The number of items.
  package var count: Int { storage.count }
  var slotCount: Int { storage.slotCount }

  /// The schema's text fields, in schema order; `columns[i]` holds field `textFields[i]`.
  var textFields: [FieldDefinition] { storage.textFields }
  var columns: [FoldedColumn] { storage.columns }
  /// Initial-consonant keys per text field, where a Hangul value arrived.
  var readingColumns: [FoldedColumn?] { storage.readingColumns }
  /// Per text field, per slot: which first bytes start words and which value lengths occur.
  var summaries: [ColumnSummary?] { storage.summaries }
  var numberFields: [FieldDefinition] { storage.numberFields }
  /// `numbers[i][slot]`: field `numberFields[i]`, NaN where the item has no number.
  var numbers: [IndexBuffer<Double>] { storage.numbers }
  /// Per slot, the id of its folded category value (-1: none).
  var categories: IndexBuffer<Int32> { storage.categories }
  var categoryIDs: [String: Int32] { storage.categoryIDs }
  var categorySets: [[Int32]] { storage.categorySets }
  var categorySpellings: [String: String] { storage.categorySpellings }
  /// The column of the title field.
  var titleColumn: Int? { storage.titleColumn }
  /// The ranking field's column among `numberFields`, if the schema declares one.
  var rankingColumn: Int? { storage.rankingColumn }
  /// Every slot by popularity, then catalog order (empty for a line index).
  var popularityOrder: IndexBuffer<Int32> { storage.popularityOrder }
  /// Each slot's position in `popularityOrder`.
  var popularityRanks: IndexBuffer<UInt32> { storage.popularityRanks }

  /// Each slot's vector (unit length), for a schema with one.
  var vectors: VectorColumn? { storage.vectors }

  func slot(of id: ID) -> Int? { storage.slotByID[id] }

  /// Live slots in catalog order.
  func orderedLiveSlots() -> [Int] { storage.orderedLiveSlots() }

  /// Whether slot `a` comes before slot `b` on popularity, then catalog order.
  func popularityPrecedes(_ a: Int, _ b: Int) -> Bool { storage.popularityPrecedes(a, b) }
}
