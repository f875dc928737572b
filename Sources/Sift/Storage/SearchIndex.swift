import Dispatch
import Foundation

/// The searchable form of a catalog: every text field folded once into its own contiguous
/// buffer, number and category fields as plain arrays, and each item's id — not its fields,
/// which stay with whoever owns the elements and are read through the schema when indexed.
///
/// Items live in *slots*. Adding appends a slot; deleting marks it dead; updating marks the old
/// slot dead and appends a new one that keeps the item's place in catalog order. Dead slots are
/// dropped in one pass when they outnumber the live ones, so no edit costs more than appending.
/// Callers see ids and `RankedMatches`, never slots.
package struct SearchIndex<ID: Hashable & Sendable>: Sendable {
  package let schema: CatalogSchema

  /// Per slot, the item's id (empty for a line index, whose slot is the line number).
  var ids = SlotIDs<ID>()
  var isLive = LiveSlots()
  /// Catalog order: ties in relevance are broken by it.
  var orderKeys = CatalogOrderKeys()
  var slotByID = SlotMap<ID>()
  var nextOrderKey: Int64 = 0
  private var deadCount = 0
  /// Counts compactions: `RankedMatches` made before one name slots that no longer exist.
  var layout = 0

  /// The schema's text fields, in schema order; `columns[i]` holds field `textFields[i]`.
  let textFields: [FieldDefinition]
  var columns: [FoldedColumn]
  /// Initial-consonant keys per text field, created when the first Hangul value arrives.
  var initialColumns: [FoldedColumn?]
  /// Per text field, per slot: which first bytes start words and which value lengths occur,
  /// so ranking skips what cannot be (nil for a line index, which ranks without them).
  var summaries: [ColumnSummary?]
  let numberFields: [FieldDefinition]
  /// `numbers[i][slot]`: field `numberFields[i]`, NaN where the item has no number.
  var numbers: [IndexBuffer<Double>]
  /// Per slot, the id of its folded category value (-1: none).
  var categories: IndexBuffer<Int32> = []
  var categoryIDs: [String: Int32] = [:]
  /// The column of the title field.
  let titleColumn: Int?
  /// The ranking field's column among `numberFields`, if the schema declares one.
  let rankingColumn: Int?
  /// Every slot (dead ones too, until compaction) by popularity, then catalog order: ranking
  /// walks it to order many matches without comparing them. Empty for a line index, whose
  /// slot order is that order.
  var popularityOrder: IndexBuffer<Int32> = []
  /// Each slot's position in `popularityOrder`: one integer key for sorting a few matches.
  var popularityRanks: IndexBuffer<UInt32> = []
  /// The word dictionaries for near spellings, built when first needed and shared by copies.
  var typoDictionaries = TypoDictionaries()
  /// Which slots hold each trigram, once `prepareSubstringSearch()` built it; shared by copies.
  var trigrams = TrigramBox()
  /// The first matches of short needles, as read from an archive; nil after a compaction.
  var leadingMatches: LeadingMatches?

  /// The number of items.
  package internal(set) var count = 0

  /// An index of `elements`, in that (catalog) order, read through `schema`.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when two elements share an id.
  /// - Complexity: O(*n*) in the total length of the elements' text, folded on every core.
  package init<Element: Identifiable & Sendable>(
    schema: SearchSchema<Element>, elements: [Element]
  ) throws(CatalogEditError) where Element.ID == ID {
    self.init(empty: schema.catalog)
    defer { setPopularityOrder(IndexBuffer(sortedByPopularity(Array(0..<Int32(slotCount))))) }
    let parts = Parallel.parts(for: elements.count, minimumPerPart: 50_000)
    guard parts > 1, !textFields.isEmpty else {
      for element in elements {
        try appendNew(element.id, schema.indexedValues(of: element))
      }
      return
    }
    // A large catalog: fold the text fields on every core, then add the rest item by item.
    let ranges = Parallel.ranges(count: elements.count, parts: parts)
    let fieldCount = textFields.count
    let folded = Parallel.map(parts: parts) { part in
      Self.foldTextFields(
        elements[ranges[part]].lazy.map { schema.indexedTexts(of: $0) }, fieldCount: fieldCount)
    }
    for field in textFields.indices {
      columns[field] = .joined(folded.map { $0.columns[field] })
      initialColumns[field] = .joinedInitials(
        folded.map { $0.initials[field] }, slotCounts: ranges.map(\.count))
    }
    summaries = columns.map(ColumnSummary.init)
    for element in elements {
      try appendNew(element.id, schema.indexedValues(of: element, texts: false), foldingText: false)
    }
  }

  /// An empty index of `schema`'s fields.
  init(empty schema: CatalogSchema, summarised: Bool = true) {
    self.schema = schema
    textFields = schema.fields.filter { $0.kind == .text }
    numberFields = schema.fields.filter { $0.kind == .number }
    columns = Array(repeating: FoldedColumn(), count: textFields.count)
    initialColumns = Array(repeating: nil, count: textFields.count)
    summaries = Array(repeating: summarised ? ColumnSummary() : nil, count: textFields.count)
    numbers = Array(repeating: [], count: numberFields.count)
    titleColumn = textFields.firstIndex { $0.name == schema.titleField }
    let rankingField = schema.rankingField?.field
    rankingColumn = numberFields.firstIndex { $0.name == rankingField }
  }

  /// The ids in catalog order.
  var allIDs: [ID] { orderedLiveSlots().map { ids[$0] } }

  package func contains(id: ID) -> Bool { slotByID[id] != nil }

  // MARK: - Edits

  /// Adds an element at the end of catalog order.
  ///
  /// - Complexity: O(*m*) in the element's text; O(*n*) to place it in popularity order when the
  ///   schema has a ranking field.
  mutating func add(_ id: ID, _ values: IndexedValues) throws(CatalogEditError) {
    try appendNew(id, values)
    insertInPopularityOrder(slotCount - 1)
  }

  /// Replaces the element with this id; it keeps its place in catalog order.
  ///
  /// - Complexity: as `add`, plus an occasional O(*n*) compaction (amortised O(1)).
  mutating func update(_ id: ID, _ values: IndexedValues) throws(CatalogEditError) {
    guard let old = slotByID[id] else { throw .unknownID(Self.describe(id)) }
    let key = orderKeys[old]
    kill(old)
    appendSlot(id, values, orderKey: key)
    insertInPopularityOrder(slotCount - 1)
    compactIfWorthIt()
  }

  /// Removes the element with this id.
  ///
  /// - Complexity: O(1), plus an occasional O(*n*) compaction (amortised O(1)).
  mutating func remove(id: ID) throws(CatalogEditError) {
    guard let slot = slotByID[id] else { throw .unknownID(Self.describe(id)) }
    kill(slot)
    slotByID[id] = nil
    count -= 1
    compactIfWorthIt()
  }

  /// An id as an error message shows it.
  static func describe(_ id: ID) -> ItemID {
    (id as? ItemID) ?? ItemID(String(describing: id))
  }

  // MARK: - Slots

  var slotCount: Int { isLive.count }

  func slot(of id: ID) -> Int? { slotByID[id] }

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

  /// Appends a slot for a new id at the end of catalog order.
  private mutating func appendNew(
    _ id: ID, _ values: IndexedValues, foldingText: Bool = true
  ) throws(CatalogEditError) {
    guard slotByID[id] == nil else { throw .duplicateID(Self.describe(id)) }
    appendSlot(id, values, orderKey: nextOrderKey, foldingText: foldingText)
    nextOrderKey += 1
    count += 1
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
      initialColumns[index].appendInitials(strings, slotsBefore: columns[index].slotCount - 1)
      summaries[index]?.appendLast(of: columns[index])
    }
    for (index, number) in values.numbers.enumerated() {
      numbers[index].append(number ?? .nan)
    }
    categories.append(categoryID(for: values.category))
  }

  /// The slot's popularity as a sort key: smaller first, a missing value last.
  func popularityKey(of slot: Int) -> Double {
    guard let rankingColumn else { return 0 }
    let value = numbers[rankingColumn][slot]
    guard !value.isNaN else { return .infinity }
    return schema.rankingField?.isAscending == true ? value : -value
  }

  /// `slots` by popularity, then catalog order.
  private func sortedByPopularity(_ slots: [Int32]) -> [Int32] {
    let ordered = zip(slots, slots.dropFirst()).allSatisfy {
      popularityPrecedes(Int($0), Int($1))
    }
    return ordered ? slots : slots.sorted { popularityPrecedes(Int($0), Int($1)) }
  }

  /// Sets `popularityOrder` and the positions in it (`ranks` when they were read with it).
  mutating func setPopularityOrder(_ order: IndexBuffer<Int32>, ranks: IndexBuffer<UInt32>? = nil) {
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

  /// Puts a new slot in its place in `popularityOrder`.
  private mutating func insertInPopularityOrder(_ slot: Int) {
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

  private mutating func categoryID(for value: String?) -> Int32 {
    guard let value else { return -1 }
    let folded = TextFolding.fold(value)
    if let id = categoryIDs[folded] { return id }
    let id = Int32(categoryIDs.count)
    categoryIDs[folded] = id
    return id
  }

  private mutating func kill(_ slot: Int) {
    isLive.kill(slot)
    deadCount += 1
  }

  /// Rebuilds the storage without dead slots once they outnumber the live ones.
  private mutating func compactIfWorthIt() {
    guard deadCount > 64, deadCount > count else { return }
    let keep = orderedLiveSlots()
    ids = SlotIDs(keep.map { ids[$0] })
    orderKeys = CatalogOrderKeys(keep.map { orderKeys[$0] })
    isLive = LiveSlots(allLive: keep.count)
    columns = columns.map { $0.compacted(keeping: keep) }
    initialColumns = initialColumns.map { $0?.compacted(keeping: keep) }
    summaries = summaries.map { $0?.compacted(keeping: keep) }
    numbers = numbers.map { column in IndexBuffer(keep.map { column[$0] }) }
    categories = IndexBuffer(keep.map { categories[$0] })
    slotByID = SlotMap(building: ids)
    deadCount = 0
    layout += 1
    setPopularityOrder(IndexBuffer(sortedByPopularity(Array(0..<Int32(keep.count)))))
    // Slots were renumbered: the dictionaries' and trigrams' postings no longer apply.
    typoDictionaries = TypoDictionaries()
    trigrams = TrigramBox()
    leadingMatches = nil
  }
}

extension SearchIndex {
  /// The folded text fields (and initial-consonant keys) of consecutive elements: one part of a
  /// parallel build.
  fileprivate static func foldTextFields(
    _ texts: some Collection<[[String]]>, fieldCount: Int
  ) -> (columns: [FoldedColumn], initials: [FoldedColumn?]) {
    var columns = Array(repeating: FoldedColumn(), count: fieldCount)
    var initials: [FoldedColumn?] = Array(repeating: nil, count: fieldCount)
    for values in texts {
      for (field, strings) in values.enumerated() {
        columns[field].append(strings)
        initials[field].appendInitials(strings, slotsBefore: columns[field].slotCount - 1)
      }
    }
    return (columns, initials)
  }
}

/// Why an edit could not be made. Edits address items by id; nothing is changed on error.
public enum CatalogEditError: Error, Hashable, Sendable, CustomStringConvertible {
  case duplicateID(ItemID)
  case unknownID(ItemID)
  case rowOutOfRange(Int, rowCount: Int)
  /// A change made through `updateRow` gave the element another id.
  case idChanged(ItemID)
  /// The schema does not describe a catalog.
  case invalidSchema(CatalogSchemaError)
  /// An index handed to a collection holds other items than the collection's.
  case indexDoesNotMatch

  public var description: String {
    switch self {
    case .duplicateID(let id): "an item with id \"\(id)\" already exists"
    case .unknownID(let id): "no item has id \"\(id)\""
    case .rowOutOfRange(let row, let count): "row \(row) is outside the \(count) rows shown"
    case .idChanged(let id): "the item with id \"\(id)\" may not change its id"
    case .invalidSchema(let error): "invalid schema: \(error)"
    case .indexDoesNotMatch: "the index does not hold these items in this order"
    }
  }
}
