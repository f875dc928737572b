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
  let numberFields: [FieldDefinition]
  /// `numbers[i][slot]`: field `numberFields[i]`, NaN where the item has no number.
  private(set) var numbers: [[Double]]
  /// Per slot, the id of its folded category value (-1: none).
  private(set) var categories: [Int32] = []
  private(set) var categoryIDs: [String: Int32] = [:]
  /// The column of the title field.
  let titleColumn: Int?

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
    numbers = Array(repeating: [], count: numberFields.count)
    titleColumn = textFields.firstIndex { $0.name == schema.titleField }
    let items = Array(items)
    let parts = Parallel.parts(for: items.count, minimumPerPart: 50_000)
    guard parts > 1, !textFields.isEmpty else {
      for item in items { try add(item) }
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
    numbers = []
    titleColumn = 0
    for line in lines {
      columns[0].append([line])
      initialColumns[0].appendInitials([line], slotsBefore: columns[0].slotCount - 1)
      isLive.append(true)
      orderKeys.append(Int64(isLive.count - 1))
      categories.append(-1)
    }
    count = isLive.count
  }

  /// An index of the lines of a UTF-8 buffer, folded straight from the bytes on every core:
  /// no `String` per line. Lines that are not valid UTF-8 are folded with replacement characters.
  ///
  /// - Complexity: O(*n*) in the buffer's length, split in as many parts as there are cores.
  package init(utf8 buffer: UnsafeBufferPointer<UInt8>, lines: [Range<Int>]) {
    self.init(lines: [String]())
    let parts = Parallel.parts(for: lines.count, minimumPerPart: 50_000)
    let ranges = Parallel.ranges(count: lines.count, parts: parts)
    let shared = SharedBytes(buffer: buffer)
    let folded = Parallel.map(parts: parts) { part in
      Self.foldLines(shared, lines[ranges[part]])
    }
    columns[0] = .joined(folded.map(\.column))
    initialColumns[0] = .joinedInitials(folded.map(\.initials), slotCounts: ranges.map(\.count))
    let count = lines.count
    isLive = Array(repeating: true, count: count)
    orderKeys = Array(0..<Int64(count))
    categories = Array(repeating: -1, count: count)
    self.count = count
  }

  /// The schema of a line index.
  package static let lineSchema = CatalogSchema(
    name: "lines", fields: [.text("line")], titleField: "line")

  // MARK: - Edits

  /// Adds an item at the end of catalog order.
  public mutating func add(_ item: Item) throws(CatalogEditError) {
    guard slotByID[item.id] == nil else { throw .duplicateID(item.id) }
    appendSlot(item, orderKey: nextOrderKey)
    nextOrderKey += 1
    count += 1
  }

  /// Replaces the item with the same id; it keeps its place in catalog order.
  public mutating func update(_ item: Item) throws(CatalogEditError) {
    guard let old = slotByID[item.id] else { throw .unknownID(item.id) }
    let key = orderKeys[old]
    kill(old)
    appendSlot(item, orderKey: key)
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
    }
    for (index, field) in numberFields.enumerated() {
      numbers[index].append(Self.number(of: item[field.name]) ?? .nan)
    }
    categories.append(categoryID(for: item))
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
    numbers = numbers.map { column in keep.map { column[$0] } }
    categories = keep.map { categories[$0] }
    slotByID = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1.id, $0) })
    deadCount = 0
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

  /// The folded lines (byte ranges of `bytes`) and their initial-consonant keys: one part of a
  /// parallel line index.
  fileprivate static func foldLines(
    _ bytes: SharedBytes, _ lines: ArraySlice<Range<Int>>
  ) -> (column: FoldedColumn, initials: FoldedColumn?) {
    var column = FoldedColumn()
    var initials: FoldedColumn?
    if let first = lines.first, let last = lines.last {
      column.reserve(bytes: last.upperBound - first.lowerBound + lines.count, slots: lines.count)
    }
    for range in lines {
      let line = UnsafeBufferPointer(rebasing: bytes.buffer[range])
      // Most lines are ASCII: one pass tells, and they need neither validation nor initials.
      if !line.contains(where: { $0 >= 0x80 }) {
        column.appendFoldedASCII(line)
        initials?.appendEmpty(count: 1)
        continue
      }
      if UTF8Validation.isValid(line) {
        column.appendFolded(utf8: line)
      } else {
        column.append([String(decoding: line, as: UTF8.self)])
      }
      // Hangul syllables have lead bytes EA…ED; only such lines can have initials.
      if line.contains(where: { $0 >= 0xEA && $0 <= 0xED }) {
        initials.appendInitials(
          [String(decoding: line, as: UTF8.self)], slotsBefore: column.slotCount - 1)
      } else {
        initials?.appendEmpty(count: 1)
      }
    }
    return (column, initials)
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
