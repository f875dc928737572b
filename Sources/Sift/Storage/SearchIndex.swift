import Dispatch
import Foundation

/// The searchable form of a catalog: every text field folded once into its own contiguous
/// buffer, number and category fields as plain arrays, and each item's id — not its fields,
/// which stay with whoever owns the elements and are read through the schema when indexed.
///
/// A façade over parts that each keep their own state: the slots and what they store
/// (`SlotStorage`, changed only by its methods), the typo dictionaries (`Typos/`), the
/// trigrams (`Matching/`) and the first matches of short needles read from an archive. The
/// other folders read the storage through the properties below and never write it. Callers
/// see ids and `RankedMatches`, never slots.
package struct SearchIndex<ID: Hashable & Sendable>: Sendable {
  package let schema: CatalogSchema
  /// The slots and their values.
  private(set) var storage: SlotStorage<ID>
  /// The word dictionaries for near spellings, built when first needed and shared by copies.
  var typoDictionaries = TypoDictionaries()
  /// Which slots hold each trigram, once `prepareSubstringSearch()` built it; shared by copies.
  var trigrams = TrigramBox()
  /// The first matches of short needles, as read from an archive; nil after a compaction.
  var leadingMatches: LeadingMatches?

  /// An index of `elements`, in that (catalog) order, read through `schema`.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when two elements share an id.
  /// - Complexity: O(*n*) in the total length of the elements' text, folded on every core.
  package init<Element: Identifiable & Sendable>(
    schema: SearchSchema<Element>, elements: [Element]
  ) throws(CatalogEditError) where Element.ID == ID {
    self.init(empty: schema.catalog)
    try appendBuilding(elements, schema: schema)
    finishBuilding()
  }

  /// Appends `elements` at the end of catalog order, their text folded on every core: one
  /// batch of a build (an import's, which never holds every item at once); `finishBuilding()`
  /// ends it. An index whose build threw is left half-built, to be thrown away.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when an element's id is in the index already.
  package mutating func appendBuilding<Element: Identifiable & Sendable>(
    _ elements: [Element], schema: SearchSchema<Element>
  ) throws(CatalogEditError) where Element.ID == ID {
    let parts = Parallel.parts(for: elements.count, minimumPerPart: 16_384)
    guard parts > 1, !textFields.isEmpty else {
      for element in elements {
        try storage.appendNew(element.id, schema.indexedValues(of: element))
      }
      return
    }
    // Many at once: fold and summarise the text fields on every core, then add the rest item
    // by item.
    let ranges = Parallel.ranges(count: elements.count, parts: parts)
    let fieldCount = textFields.count
    storage.appendTextColumns(
      Parallel.map(parts: parts) { part in
        FoldedTextFields(
          elements[ranges[part]].lazy.map { schema.indexedTexts(of: $0) }, fieldCount: fieldCount)
      })
    for element in elements {
      try storage.appendNew(
        element.id, schema.indexedValues(of: element, texts: false), foldingText: false)
    }
  }

  /// Ends a build in batches: the popularity order of every slot.
  package mutating func finishBuilding() {
    storage.sortByPopularity()
  }

  /// An empty index of `schema`'s fields (`appendBuilding` fills it).
  package init(empty schema: CatalogSchema, summarised: Bool = true) {
    self.init(schema: schema, storage: SlotStorage(empty: schema, summarised: summarised))
  }

  /// An index of `storage`, whose typo dictionaries and trigrams are built when first needed.
  init(schema: CatalogSchema, storage: SlotStorage<ID>) {
    self.schema = schema
    self.storage = storage
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
    try storage.appendNew(id, values)
    storage.placeLastInPopularityOrder()
  }

  /// Replaces the element with this id; it keeps its place in catalog order.
  ///
  /// - Complexity: as `add`, plus an occasional O(*n*) compaction (amortised O(1)).
  mutating func update(_ id: ID, _ values: IndexedValues) throws(CatalogEditError) {
    try storage.replace(id, values)
    storage.placeLastInPopularityOrder()
    compactIfWorthIt()
  }

  /// Removes the element with this id.
  ///
  /// - Complexity: O(1), plus an occasional O(*n*) compaction (amortised O(1)).
  mutating func remove(id: ID) throws(CatalogEditError) {
    try storage.remove(id: id)
    compactIfWorthIt()
  }

  /// An id as an error message shows it.
  static func describe(_ id: ID) -> ItemID {
    (id as? ItemID) ?? ItemID(String(describing: id))
  }

  /// Drops dead slots once they outnumber the live ones, and with them what named the old slots.
  private mutating func compactIfWorthIt() {
    guard storage.compactIfWorthIt() else { return }
    typoDictionaries = TypoDictionaries()
    trigrams = TrigramBox()
    leadingMatches = nil
  }
}

/// The folded text fields of consecutive elements, with their readings (`Readings`) and
/// summaries: one part of a parallel build.
struct FoldedTextFields: Sendable {
  var columns: [FoldedColumn]
  var readings: [FoldedColumn?]
  var summaries: [ColumnSummary]
  let slotCount: Int

  init(_ texts: some Collection<[[String]]>, fieldCount: Int) {
    columns = Array(repeating: FoldedColumn(), count: fieldCount)
    readings = Array(repeating: nil, count: fieldCount)
    for values in texts {
      for (field, strings) in values.enumerated() {
        columns[field].append(strings)
        readings[field].appendReadings(strings, slotsBefore: columns[field].slotCount - 1)
      }
    }
    slotCount = texts.count
    summaries = columns.map { ColumnSummary($0, slots: 0..<$0.slotCount) }
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
  /// A field's value the catalog cannot take (a vector of the wrong length).
  case invalidValue(field: String, reason: String)

  public var description: String {
    switch self {
    case .duplicateID(let id): "an item with id \"\(id)\" already exists"
    case .unknownID(let id): "no item has id \"\(id)\""
    case .rowOutOfRange(let row, let count): "row \(row) is outside the \(count) rows shown"
    case .idChanged(let id): "the item with id \"\(id)\" may not change its id"
    case .invalidSchema(let error): "invalid schema: \(error)"
    case .indexDoesNotMatch: "the index does not hold these items in this order"
    case .invalidValue(let field, let reason): "field \"\(field)\" \(reason)"
    }
  }
}
