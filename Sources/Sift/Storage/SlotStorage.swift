/// What an index stores per item, slot by slot: ids, catalog order, the folded text columns with
/// their summaries, numbers, categories and the popularity order. Every array here has one
/// entry per slot; only this type's own methods change them, so that no edit path can grow one
/// array and forget another (`invariantViolations()` checks it in debug builds).
///
/// Items live in *slots*. Adding appends a slot; deleting marks it dead; updating marks the old
/// slot dead and appends a new one that keeps the item's place in catalog order. Dead slots are
/// dropped in one pass when they outnumber the live ones, so no edit costs more than appending.
struct SlotStorage<ID: Hashable & Sendable>: Sendable {
  /// Per slot, the item's id (empty for a line index, whose slot is the line number).
  private(set) var ids = SlotIDs<ID>()
  private(set) var isLive = LiveSlots()
  /// Catalog order: ties in relevance are broken by it.
  private(set) var orderKeys = CatalogOrderKeys()
  private(set) var slotByID = SlotMap<ID>()
  private var nextOrderKey: Int64 = 0
  private var deadCount = 0
  /// Counts compactions: slots named before one no longer exist.
  private(set) var layout = 0
  /// The number of live items.
  private(set) var count = 0

  /// The schema's text fields, in schema order, then a searched category
  /// (`CatalogSchema.indexedTextFields`); `columns[i]` holds field `textFields[i]`.
  let textFields: [FieldDefinition]
  private(set) var columns: [FoldedColumn]
  /// Readings per text field (`Readings`: Hangul initials, pinyin, romaji), created when the
  /// first value with one arrives.
  private(set) var readingColumns: [FoldedColumn?]
  /// Per text field, per slot: which first bytes start words and which value lengths occur,
  /// so ranking skips what cannot be (nil for a line index, which ranks without them).
  private(set) var summaries: [ColumnSummary?]
  let numberFields: [FieldDefinition]
  /// `numbers[i][slot]`: field `numberFields[i]`, NaN where the item has no number.
  private(set) var numbers: [IndexBuffer<Double>]
  /// Per slot, its category: the id of its folded value (≥ 0), -1 for none, or for an item in
  /// several (a film's genres, a list) `-2 - n`, where `categorySets[n]` holds the values' ids
  /// in the item's order. An item of one value, the common case, is one comparison.
  private(set) var categories: IndexBuffer<Int32> = []
  private(set) var categoryIDs: [String: Int32] = [:]
  /// The lists of several category values items hold, each once.
  private(set) var categorySets: [[Int32]] = []
  private var categorySetIDs: [[Int32]: Int32] = [:]
  /// Per folded category value, the value as the first item that had it spelt it ("Fruit"):
  /// what a list of categories shows when the schema does not list them (an app's own type,
  /// a value an edit added). Archived with the index, so a catalog read back keeps it.
  private(set) var categorySpellings: [String: String] = [:]
  /// The column of the title field.
  let titleColumn: Int?
  /// Each text column's attribute (`MatchRank.attribute`): 0 for every name — the title and
  /// the fields of other names (`FieldDefinition.namesItem`), so "wien" finds Vienna, whose
  /// other name it is, as a name — then 1, 2, … for the fields that describe the item, in
  /// schema order.
  let textAttributes: [Int]
  /// Whether each text column names the item (the title or other names): only a name equal to
  /// the query or starting with it decides the exactness.
  let namesItem: [Bool]
  /// The ranking field's column among `numberFields`, if the schema declares one.
  let rankingColumn: Int?
  private let ranksAscending: Bool
  /// Every slot (dead ones too, until compaction) by popularity, then catalog order: ranking
  /// walks it to order many matches without comparing them. Empty for a line index, whose
  /// slot order is that order.
  private(set) var popularityOrder: IndexBuffer<Int32> = []
  /// Each slot's position in `popularityOrder`: one integer key for sorting a few matches.
  private(set) var popularityRanks: IndexBuffer<UInt32> = []
  /// Each slot's vector, for a schema with one (`CatalogSchema.vector`); nil without.
  private(set) var vectors: VectorColumn?

  /// Empty storage for `schema`'s fields.
  init(empty schema: CatalogSchema, summarised: Bool = true) {
    textFields = schema.indexedTextFields
    numberFields = schema.fields.filter { $0.kind == .number }
    columns = Array(repeating: FoldedColumn(), count: textFields.count)
    readingColumns = Array(repeating: nil, count: textFields.count)
    summaries = Array(repeating: summarised ? ColumnSummary() : nil, count: textFields.count)
    numbers = Array(repeating: [], count: numberFields.count)
    let titleColumn = textFields.firstIndex { $0.name == schema.titleField }
    self.titleColumn = titleColumn
    let texts = textFields
    let names = texts.indices.map { $0 == titleColumn || texts[$0].namesItem }
    var attributes = [Int](repeating: 0, count: textFields.count)
    for (index, column) in texts.indices.filter({ !names[$0] }).enumerated() {
      attributes[column] = index + 1
    }
    textAttributes = attributes
    namesItem = names
    let rankingField = schema.rankingField
    rankingColumn = numberFields.firstIndex { $0.name == rankingField?.field }
    ranksAscending = rankingField?.isAscending == true
    vectors = schema.vector.map { VectorColumn(dimensions: $0.dimensions) }
  }

  var slotCount: Int { isLive.count }

  // MARK: - Filling in batches

  /// Appends the text columns of the next slots, folded and summarised elsewhere (on every
  /// core), each field's parts in slot order; the slots themselves are then appended with
  /// `appendNew(_:_:foldingText: false)`.
  mutating func appendTextColumns(_ parts: [FoldedTextFields]) {
    for field in columns.indices {
      for part in parts {
        if let readings = part.readings[field] {
          if readingColumns[field] == nil {
            var created = FoldedColumn()
            created.appendEmpty(count: columns[field].slotCount)
            readingColumns[field] = created
          }
          readingColumns[field]!.append(contentsOf: readings)
        } else {
          readingColumns[field]?.appendEmpty(count: part.slotCount)
        }
        columns[field].append(contentsOf: part.columns[field])
        summaries[field]?.append(contentsOf: part.summaries[field])
      }
    }
  }

  /// Storage read back from an archive: `count` live slots in catalog order.
  init(
    schema: CatalogSchema, ids: SlotIDs<ID>, count: Int, columns: [FoldedColumn],
    readingColumns: [FoldedColumn?], summaries: [ColumnSummary?], numbers: [IndexBuffer<Double>],
    categoryIDs: [String: Int32], categorySpellings: [String: String],
    categorySets: [[Int32]], categories: IndexBuffer<Int32>,
    popularityOrder: IndexBuffer<Int32>, popularityRanks: IndexBuffer<UInt32>,
    vectors: VectorColumn? = nil
  ) {
    self.init(empty: schema)
    self.ids = ids
    isLive = LiveSlots(allLive: count)
    orderKeys = CatalogOrderKeys(slotOrder: count)
    nextOrderKey = Int64(count)
    self.count = count
    slotByID = SlotMap(lazilyFrom: ids)
    self.columns = columns
    self.readingColumns = readingColumns
    self.summaries = summaries
    self.numbers = numbers
    self.categoryIDs = categoryIDs
    self.categorySpellings = categorySpellings
    self.categorySets = categorySets
    for (index, set) in categorySets.enumerated() { categorySetIDs[set] = Int32(index) }
    self.categories = categories
    self.vectors = vectors
    setPopularityOrder(popularityOrder, ranks: popularityRanks)
  }

  /// The storage of a line index: one text column of `count` lines, slot *i* line *i*, no ids,
  /// numbers, categories or popularity.
  init(lines column: FoldedColumn, readings: FoldedColumn?, count: Int, schema: CatalogSchema) {
    self.init(empty: schema, summarised: false)
    columns = [column]
    readingColumns = [readings]
    isLive = LiveSlots(allLive: count)
    orderKeys = CatalogOrderKeys(slotOrder: count)
    categories = IndexBuffer(Array(repeating: -1, count: count))
    self.count = count
  }

  // MARK: - Edits

  /// Appends a slot for a new id at the end of catalog order; `foldingText: false` when its
  /// text columns were filled already (`appendTextColumns`).
  mutating func appendNew(
    _ id: ID, _ values: IndexedValues, foldingText: Bool = true
  ) throws(CatalogEditError) {
    guard slotByID[id] == nil else { throw .duplicateID(SearchIndex.describe(id)) }
    appendSlot(id, values, orderKey: nextOrderKey, foldingText: foldingText)
    nextOrderKey += 1
    count += 1
  }

  /// Appends a line: a slot without an id, numbers or category.
  mutating func appendLine(_ line: String) {
    columns[0].append([line])
    readingColumns[0].appendReadings([line], slotsBefore: columns[0].slotCount - 1)
    isLive.appendLive()
    orderKeys.append(Int64(isLive.count - 1))
    categories.append(-1)
    count += 1
  }

  /// Replaces the live slot of `id` by a new one that keeps its place in catalog order.
  mutating func replace(_ id: ID, _ values: IndexedValues) throws(CatalogEditError) {
    guard let old = slotByID[id] else { throw .unknownID(SearchIndex.describe(id)) }
    let key = orderKeys[old]
    kill(old)
    appendSlot(id, values, orderKey: key)
  }

  /// Marks the slot of `id` dead.
  mutating func remove(id: ID) throws(CatalogEditError) {
    guard let slot = slotByID[id] else { throw .unknownID(SearchIndex.describe(id)) }
    kill(slot)
    slotByID[id] = nil
    count -= 1
  }

  /// Appends a slot; `foldingText: false` when its text columns were filled already.
  private mutating func appendSlot(
    _ id: ID, _ values: IndexedValues, orderKey: Int64, foldingText: Bool = true
  ) {
    let slot = isLive.count
    ids.append(id)
    isLive.appendLive()
    orderKeys.append(orderKey)
    slotByID[id] = slot
    for (index, strings) in values.texts.enumerated() where foldingText {
      columns[index].append(strings)
      readingColumns[index].appendReadings(strings, slotsBefore: columns[index].slotCount - 1)
      summaries[index]?.appendLast(of: columns[index])
    }
    for (index, number) in values.numbers.enumerated() {
      numbers[index].append(number ?? .nan)
    }
    categories.append(categoryID(for: values.categories))
    vectors?.append(values.vector)
  }

  /// The slot category of an item with these values: one value's id, a list's, or -1.
  private mutating func categoryID(for values: [String]) -> Int32 {
    switch values.count {
    case 0: return -1
    case 1: return valueID(for: values[0])
    default:
      var ids: [Int32] = []
      for value in values {
        let id = valueID(for: value)
        if !ids.contains(id) { ids.append(id) }
      }
      if ids.count == 1 { return ids[0] }
      if let set = categorySetIDs[ids] { return -2 - set }
      let set = Int32(categorySets.count)
      categorySets.append(ids)
      categorySetIDs[ids] = set
      return -2 - set
    }
  }

  private mutating func valueID(for value: String) -> Int32 {
    let folded = TextFolding.fold(value)
    if let id = categoryIDs[folded] { return id }
    let id = Int32(categoryIDs.count)
    categoryIDs[folded] = id
    categorySpellings[folded] = value
    return id
  }

  /// Whether `slot` holds the category value `id`, alone or in its list.
  @inline(__always)
  func slot(_ slot: Int, holdsCategory id: Int32) -> Bool {
    let own = categories[slot]
    if own == id { return true }
    return own < -1 && categorySets[Int(-2 - own)].contains(id)
  }

  /// Calls `body` with each category value id `slot` holds.
  @inline(__always)
  func forEachCategory(ofSlot slot: Int, _ body: (Int32) -> Void) {
    let own = categories[slot]
    if own >= 0 {
      body(own)
    } else if own < -1 {
      for id in categorySets[Int(-2 - own)] { body(id) }
    }
  }

  private mutating func kill(_ slot: Int) {
    isLive.kill(slot)
    deadCount += 1
  }

  /// Rebuilds the storage without dead slots once they outnumber the live ones.
  ///
  /// - Returns: whether it did: slots were renumbered, so whatever names slots (typo
  ///   dictionaries, trigrams, kept matches) no longer applies.
  mutating func compactIfWorthIt() -> Bool {
    guard deadCount > 64, deadCount > count else { return false }
    let keep = orderedLiveSlots()
    ids = SlotIDs(keep.map { ids[$0] })
    orderKeys = CatalogOrderKeys(keep.map { orderKeys[$0] })
    isLive = LiveSlots(allLive: keep.count)
    columns = columns.map { $0.compacted(keeping: keep) }
    readingColumns = readingColumns.map { $0?.compacted(keeping: keep) }
    summaries = summaries.map { $0?.compacted(keeping: keep) }
    numbers = numbers.map { column in IndexBuffer(keep.map { column[$0] }) }
    categories = IndexBuffer(keep.map { categories[$0] })
    vectors = vectors?.compacted(keeping: keep)
    slotByID = SlotMap(building: ids)
    deadCount = 0
    layout += 1
    sortByPopularity()
    return true
  }

  // MARK: - Order

  /// Live slots in catalog order.
  func orderedLiveSlots() -> [Int] {
    var slots = (0..<slotCount).filter { isLive[$0] }
    if !isInCatalogOrder(slots) {
      slots.sort { orderKeys[$0] < orderKeys[$1] }
    }
    return slots
  }

  private func isInCatalogOrder(_ slots: [Int]) -> Bool {
    zip(slots, slots.dropFirst()).allSatisfy { orderKeys[$0] < orderKeys[$1] }
  }

  /// The slot's popularity as a sort key: smaller first, a missing value last.
  func popularityKey(of slot: Int) -> Double {
    guard let rankingColumn else { return 0 }
    let value = numbers[rankingColumn][slot]
    guard !value.isNaN else { return .infinity }
    return ranksAscending ? value : -value
  }

  /// Whether slot `a` comes before slot `b` on popularity, then catalog order.
  func popularityPrecedes(_ a: Int, _ b: Int) -> Bool {
    if rankingColumn != nil {
      let (keyA, keyB) = (popularityKey(of: a), popularityKey(of: b))
      if keyA != keyB { return keyA < keyB }
    }
    return orderKeys[a] < orderKeys[b]
  }

  /// Sets `popularityOrder` from every slot, by popularity, then catalog order.
  mutating func sortByPopularity() {
    // Each slot's keys read once, then sorted as plain values: comparing through
    // `popularityPrecedes` read them again for every comparison (a second of an import at four
    // times the cities).
    var keyed = (0..<slotCount).map { slot in
      (key: popularityKey(of: slot), order: orderKeys[slot], slot: Int32(slot))
    }
    let ordered = zip(keyed, keyed.dropFirst()).allSatisfy {
      ($0.key, $0.order) < ($1.key, $1.order)
    }
    if !ordered { keyed.sort { ($0.key, $0.order) < ($1.key, $1.order) } }
    setPopularityOrder(IndexBuffer(keyed.map(\.slot)))
  }

  /// Sets `popularityOrder` and the positions in it (`ranks` when they were read with it).
  private mutating func setPopularityOrder(
    _ order: IndexBuffer<Int32>, ranks: IndexBuffer<UInt32>? = nil
  ) {
    popularityOrder = order
    popularityRanks = ranks ?? Self.positions(in: order)
  }

  /// Each slot's position in `order`.
  static func positions(in order: IndexBuffer<Int32>) -> IndexBuffer<UInt32> {
    var ranks = [UInt32](repeating: 0, count: order.count)
    ranks.withUnsafeMutableBufferPointer { ranks in
      order.withUnsafeBufferPointer { order in
        for (position, slot) in order.enumerated() { ranks[Int(slot)] = UInt32(position) }
      }
    }
    return IndexBuffer(ranks)
  }

  /// Puts the last slot in its place in `popularityOrder`.
  mutating func placeLastInPopularityOrder() {
    let slot = slotCount - 1
    var low = 0
    var high = popularityOrder.count
    while low < high {
      let mid = (low + high) / 2
      if popularityPrecedes(Int(popularityOrder[mid]), slot) { low = mid + 1 } else { high = mid }
    }
    popularityOrder.insert(Int32(slot), at: low)
    popularityRanks.append(0)
    for position in low..<popularityOrder.count {
      popularityRanks[Int(popularityOrder[position])] = UInt32(position)
    }
  }
}
