import Dispatch
import Foundation

/// The searchable form of a catalog: every text field folded once into its own contiguous
/// buffer, number and category fields as plain arrays, and the items themselves for display.
///
/// Items live in *slots*. Adding appends a slot; deleting marks it dead; updating marks the old
/// slot dead and appends a new one that keeps the item's place in catalog order. Dead slots are
/// dropped in one pass when they outnumber the live ones, so no edit costs more than appending.
public struct SearchIndex: Sendable {
  public let schema: CatalogSchema

  private(set) var items: [Item] = []
  private(set) var isLive: [Bool] = []
  /// Catalog order: ties in relevance are broken by it.
  private(set) var orderKeys: [Int64] = []
  private(set) var slotByID: [ItemID: Int] = [:]
  private var nextOrderKey: Int64 = 0
  private var deadCount = 0

  /// The schema's text fields, in schema order; `columns[i]` holds field `textFields[i]`.
  let textFields: [FieldDefinition]
  private(set) var columns: [FoldedColumn]
  /// Initial-consonant keys per text field, created when the first Hangul value arrives.
  private(set) var initialColumns: [FoldedColumn?]
  /// Per text field, per slot: which first bytes start words and which value lengths occur,
  /// so ranking skips what cannot be (nil for a line index, which ranks without them).
  private(set) var summaries: [ColumnSummary?]
  let numberFields: [FieldDefinition]
  /// `numbers[i][slot]`: field `numberFields[i]`, NaN where the item has no number.
  private(set) var numbers: [[Double]]
  /// Per slot, the id of its folded category value (-1: none).
  private(set) var categories: [Int32] = []
  private(set) var categoryIDs: [String: Int32] = [:]
  /// The column of the title field.
  let titleColumn: Int?
  /// The ranking field's column among `numberFields`, if the schema declares one.
  let rankingColumn: Int?
  /// Per slot, popularity as a sort key: smaller comes first (a missing value last). Empty
  /// without a ranking field.
  private(set) var popularityKeys: [Double] = []
  /// Every slot (dead ones too, until compaction) by popularity, then catalog order: ranking
  /// walks it to order many matches without comparing them. Empty for a line index, whose
  /// slot order is that order.
  private(set) var popularityOrder: [Int32] = []
  /// Each slot's position in `popularityOrder`: one integer key for sorting a few matches.
  private(set) var popularityRanks: [UInt32] = []
  /// The word dictionaries for near spellings, built when first needed and shared by copies.
  private(set) var typoDictionaries = TypoDictionaries()

  /// The number of items.
  public private(set) var count = 0

  /// An index of `items`, in that (catalog) order.
  ///
  /// - Throws: `CatalogEditError.duplicateID` when two items share an id.
  /// - Complexity: O(*n*) in the total length of the items' text.
  public init(schema: CatalogSchema, items: some Sequence<Item> = []) throws(CatalogEditError) {
    self.schema = schema
    textFields = schema.fields.filter { $0.kind == .text }
    numberFields = schema.fields.filter { $0.kind == .number }
    columns = Array(repeating: FoldedColumn(), count: textFields.count)
    initialColumns = Array(repeating: nil, count: textFields.count)
    summaries = Array(repeating: ColumnSummary(), count: textFields.count)
    numbers = Array(repeating: [], count: numberFields.count)
    titleColumn = textFields.firstIndex { $0.name == schema.titleField }
    let rankingField = schema.rankingField?.field
    rankingColumn = numberFields.firstIndex { $0.name == rankingField }
    defer { setPopularityOrder(sortedByPopularity(Array(0..<Int32(slotCount)))) }
    let items = Array(items)
    let parts = Parallel.parts(for: items.count, minimumPerPart: 50_000)
    guard parts > 1, !textFields.isEmpty else {
      for item in items {
        guard slotByID[item.id] == nil else { throw .duplicateID(item.id) }
        appendSlot(item, orderKey: nextOrderKey)
        nextOrderKey += 1
        count += 1
      }
      return
    }
    // A large catalog: fold the text fields on every core, then add the rest item by item.
    let ranges = Parallel.ranges(count: items.count, parts: parts)
    let names = textFields.map(\.name)
    let folded = Parallel.map(parts: parts) { part in
      Self.foldTextFields(items[ranges[part]], fields: names)
    }
    for field in textFields.indices {
      columns[field] = .joined(folded.map { $0.columns[field] })
      initialColumns[field] = .joinedInitials(
        folded.map { $0.initials[field] }, slotCounts: ranges.map(\.count))
    }
    summaries = columns.map(ColumnSummary.init)
    for item in items {
      guard slotByID[item.id] == nil else { throw .duplicateID(item.id) }
      appendSlot(item, orderKey: nextOrderKey, foldingText: false)
      nextOrderKey += 1
      count += 1
    }
  }

  /// The items in catalog order.
  public var allItems: [Item] { orderedLiveSlots().map { items[$0] } }

  /// The item with this id.
  public func item(id: ItemID) -> Item? { slotByID[id].map { items[$0] } }

  public func contains(id: ItemID) -> Bool { slotByID[id] != nil }

  /// An index of plain lines, for line filters: one text field, `line`, and no `Item`s, so a
  /// million lines cost their folded bytes and a few bytes each. Slot *i* is line *i*.
  package init(lines: some Sequence<String>) {
    self.schema = Self.lineSchema
    textFields = schema.fields
    numberFields = []
    columns = [FoldedColumn()]
    initialColumns = [nil]
    summaries = [nil]
    numbers = []
    titleColumn = 0
    rankingColumn = nil
    for line in lines {
      columns[0].append([line])
      initialColumns[0].appendInitials([line], slotsBefore: columns[0].slotCount - 1)
      isLive.append(true)
      orderKeys.append(Int64(isLive.count - 1))
      categories.append(-1)
    }
    count = isLive.count
  }

  /// An index of the lines of a UTF-8 buffer, split and folded in one pass on every core (no
  /// `String` per line), and where the lines start. Lines that are not valid UTF-8 are folded
  /// with replacement characters.
  ///
  /// Fresh memory is what costs most here (a page fault per 4 KiB), so each part folds straight
  /// into its own region of the one buffer the index keeps, and nothing is copied afterwards.
  ///
  /// - Complexity: O(*n*) in the buffer's length, split in as many parts as there are cores.
  package static func lines(utf8 buffer: UnsafeBufferPointer<UInt8>) -> (
    index: SearchIndex, lines: LineStarts
  ) {
    let parts = LineFolding.partBoundaries(
      of: buffer, parts: Parallel.parts(for: buffer.count, minimumPerPart: 1 << 20))
    // Part p writes from its input offset plus `slack` per earlier part; folding rarely makes
    // text longer, and the last part gets room to spare (untouched capacity costs nothing).
    let slack = 64
    let regionStarts = parts.indices.map { parts[$0].lowerBound + $0 * slack }
    let capacity = buffer.count + slack * parts.count + buffer.count / 4
    let input = SharedBytes(buffer: buffer)
    var folded: [LineFolding.Part] = []
    var joined: FoldedColumn?  // set when a part outgrew its region
    let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { storage, initialized in
      let output = SharedOutput(buffer: storage)
      folded = Parallel.map(parts: parts.count) { part in
        let regionEnd = part + 1 < parts.count ? regionStarts[part + 1] : capacity
        let region = UnsafeMutableBufferPointer(
          rebasing: output.buffer[regionStarts[part]..<regionEnd])
        return LineFolding.fold(input.buffer, range: parts[part], into: region)
      }
      guard folded.allSatisfy({ $0.inPlaceCount != nil }) else {
        // Rare (text that folds much longer, like Hangul): join the parts by copying them.
        joined = .joined(
          folded.indices.map { part in
            let result = folded[part]
            switch result.output {
            case .inPlace(let count):
              let start = regionStarts[part]
              return FoldedColumn(
                bytes: Array(storage[start..<start + count]), starts: result.starts)
            case .moved(let bytes):
              return FoldedColumn(bytes: bytes, starts: result.starts)
            }
          })
        initialized = 0
        return
      }
      // The gap after a part is zeros: extra empty values of its last line, never matched.
      var end = 0
      for (part, result) in folded.enumerated() {
        storage[end..<regionStarts[part]].initialize(repeating: 0)
        end = regionStarts[part] + result.inPlaceCount!
      }
      initialized = end
    }

    var index = SearchIndex(lines: [String]())
    if let joined {
      index.columns[0] = joined
    } else {
      var starts: [UInt32] = []
      starts.reserveCapacity(folded.reduce(1) { $0 + $1.starts.count - 1 })
      for (part, result) in folded.enumerated() {
        let base = UInt32(truncatingIfNeeded: regionStarts[part])
        // The next part's first start (its region's start) ends this part's last line.
        let partStarts = part + 1 < folded.count ? result.starts.dropLast() : result.starts[...]
        for start in partStarts { starts.append(start &+ base) }
      }
      index.columns[0] = FoldedColumn(bytes: bytes, starts: starts)
    }
    let lines = LineStarts(
      parts: zip(parts, folded).map { LineStarts.Part(base: $0.lowerBound, starts: $1.lineStarts) })
    index.initialColumns[0] = .joinedInitials(
      folded.map(\.initials), slotCounts: folded.map(\.lineStarts.count))
    index.isLive = Array(repeating: true, count: lines.count)
    index.orderKeys = Array(0..<Int64(lines.count))
    index.categories = Array(repeating: -1, count: lines.count)
    index.count = lines.count
    return (index, lines)
  }

  /// The schema of a line index.
  package static let lineSchema = CatalogSchema(
    name: "lines", fields: [.text("line")], titleField: "line")

  // MARK: - Edits

  /// Adds an item at the end of catalog order.
  public mutating func add(_ item: Item) throws(CatalogEditError) {
    guard slotByID[item.id] == nil else { throw .duplicateID(item.id) }
    appendSlot(item, orderKey: nextOrderKey)
    insertInPopularityOrder(slotCount - 1)
    nextOrderKey += 1
    count += 1
  }

  /// Replaces the item with the same id; it keeps its place in catalog order.
  public mutating func update(_ item: Item) throws(CatalogEditError) {
    guard let old = slotByID[item.id] else { throw .unknownID(item.id) }
    let key = orderKeys[old]
    kill(old)
    appendSlot(item, orderKey: key)
    insertInPopularityOrder(slotCount - 1)
    compactIfWorthIt()
  }

  /// Removes the item with this id and returns it.
  @discardableResult
  public mutating func remove(id: ItemID) throws(CatalogEditError) -> Item {
    guard let slot = slotByID[id] else { throw .unknownID(id) }
    let item = items[slot]
    kill(slot)
    slotByID[id] = nil
    count -= 1
    compactIfWorthIt()
    return item
  }

  // MARK: - Slots

  var slotCount: Int { isLive.count }

  func slot(of id: ItemID) -> Int? { slotByID[id] }

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

  /// Appends a slot for `item`; `foldingText: false` when its text columns were filled already.
  private mutating func appendSlot(_ item: Item, orderKey: Int64, foldingText: Bool = true) {
    let slot = items.count
    items.append(item)
    isLive.append(true)
    orderKeys.append(orderKey)
    slotByID[item.id] = slot
    for (index, field) in textFields.enumerated() where foldingText {
      let values = Self.strings(of: item[field.name])
      columns[index].append(values)
      initialColumns[index].appendInitials(values, slotsBefore: columns[index].slotCount - 1)
      summaries[index]?.appendLast(of: columns[index])
    }
    for (index, field) in numberFields.enumerated() {
      numbers[index].append(Self.number(of: item[field.name]) ?? .nan)
    }
    if rankingColumn != nil { popularityKeys.append(popularityKey(of: slot)) }
    categories.append(categoryID(for: item))
  }

  /// The slot's popularity as a sort key: smaller first, a missing value last.
  private func popularityKey(of slot: Int) -> Double {
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

  /// Sets `popularityOrder` and the positions in it.
  private mutating func setPopularityOrder(_ order: [Int32]) {
    popularityOrder = order
    popularityRanks = [UInt32](repeating: 0, count: order.count)
    for (position, slot) in order.enumerated() { popularityRanks[Int(slot)] = UInt32(position) }
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

  private mutating func categoryID(for item: Item) -> Int32 {
    guard let field = schema.categoryField, let value = item[field]?.strings.first else {
      return -1
    }
    let folded = TextFolding.fold(value)
    if let id = categoryIDs[folded] { return id }
    let id = Int32(categoryIDs.count)
    categoryIDs[folded] = id
    return id
  }

  private mutating func kill(_ slot: Int) {
    isLive[slot] = false
    deadCount += 1
  }

  /// Rebuilds the storage without dead slots once they outnumber the live ones.
  private mutating func compactIfWorthIt() {
    guard deadCount > 64, deadCount > count else { return }
    let keep = orderedLiveSlots()
    items = keep.map { items[$0] }
    orderKeys = keep.map { orderKeys[$0] }
    isLive = Array(repeating: true, count: keep.count)
    columns = columns.map { $0.compacted(keeping: keep) }
    initialColumns = initialColumns.map { $0?.compacted(keeping: keep) }
    summaries = summaries.map { $0?.compacted(keeping: keep) }
    numbers = numbers.map { column in keep.map { column[$0] } }
    categories = keep.map { categories[$0] }
    if !popularityKeys.isEmpty { popularityKeys = keep.map { popularityKeys[$0] } }
    slotByID = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1.id, $0) })
    deadCount = 0
    setPopularityOrder(sortedByPopularity(Array(0..<Int32(keep.count))))
    // Slots were renumbered: the dictionaries' postings no longer apply.
    typoDictionaries = TypoDictionaries()
  }

  /// The strings a text field indexes: text as it is, numbers as they read.
  static func strings(of value: FieldValue?) -> [String] {
    switch value {
    case .none: []
    case .number(let number): [FieldValue.format(number)]
    case .some(let value): value.strings
    }
  }

  /// The number a number field holds; text that reads as a number counts.
  static func number(of value: FieldValue?) -> Double? {
    switch value {
    case .number(let number): number
    case .text(let text): NumberFilterSyntax.number(text.trimmingWhitespace())
    default: nil
    }
  }
}

extension SearchIndex {
  /// The folded text fields (and initial-consonant keys) of consecutive items: one part of a
  /// parallel build.
  fileprivate static func foldTextFields(
    _ items: ArraySlice<Item>, fields: [String]
  ) -> (columns: [FoldedColumn], initials: [FoldedColumn?]) {
    var columns = Array(repeating: FoldedColumn(), count: fields.count)
    var initials: [FoldedColumn?] = Array(repeating: nil, count: fields.count)
    for item in items {
      for (field, name) in fields.enumerated() {
        let values = strings(of: item[name])
        columns[field].append(values)
        initials[field].appendInitials(values, slotsBefore: columns[field].slotCount - 1)
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

  public var description: String {
    switch self {
    case .duplicateID(let id): "an item with id \"\(id)\" already exists"
    case .unknownID(let id): "no item has id \"\(id)\""
    case .rowOutOfRange(let row, let count): "row \(row) is outside the \(count) rows shown"
    }
  }
}
