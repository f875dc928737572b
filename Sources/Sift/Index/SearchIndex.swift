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
    let parts = min(ProcessInfo.processInfo.activeProcessorCount, items.count / 50_000)
    guard parts > 1, !textFields.isEmpty else {
      for item in items { try add(item) }
      return
    }
    // A large catalog: fold the text fields on every core, then add the rest item by item.
    let folded = ItemFoldResults(items: items, fields: textFields.map(\.name), parts: parts)
    DispatchQueue.concurrentPerform(iterations: parts) { folded.fold(part: $0) }
    for field in textFields.indices {
      columns[field] = folded.columns[0][field]
      for part in 1..<parts { columns[field].append(contentsOf: folded.columns[part][field]) }
      if folded.initials.contains(where: { $0[field] != nil }) {
        var merged = FoldedColumn()
        for part in 0..<parts {
          if let initials = folded.initials[part][field] {
            merged.append(contentsOf: initials)
          } else {
            merged.appendEmpty(count: folded.ranges[part].count)
          }
        }
        initialColumns[field] = merged
      }
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
      appendInitials([line], column: 0)
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
    let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, lines.count / 50_000))
    let box = ChunkResults(count: parts, buffer: buffer, lines: lines)
    DispatchQueue.concurrentPerform(iterations: parts) { part in box.fold(part: part, of: parts) }
    columns[0] = box.columns[0]
    for part in 1..<parts { columns[0].append(contentsOf: box.columns[part]) }
    if box.initials.contains(where: { $0 != nil }) {
      var merged = FoldedColumn()
      for part in 0..<parts {
        merged.append(
          contentsOf: box.initials[part]
            ?? {
              var empty = FoldedColumn(); empty.appendEmpty(count: box.lineCounts[part]);
              return empty
            }())
      }
      initialColumns[0] = merged
    }
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
      appendInitials(values, column: index)
    }
    for (index, field) in numberFields.enumerated() {
      numbers[index].append(Self.number(of: item[field.name]) ?? .nan)
    }
    categories.append(categoryID(for: item))
  }

  private mutating func appendInitials(_ values: [String], column: Int) {
    if initialColumns[column] == nil {
      guard values.contains(where: { TextFolding.initialConsonants(of: $0) != nil }) else { return }
      var created = FoldedColumn()
      created.appendEmpty(count: columns[column].slotCount - 1)
      initialColumns[column] = created
    }
    initialColumns[column]?.appendInitials(values)
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

/// The text columns of a catalog folded in parts on every core; part *i* writes only its own
/// slots of `columns` and `initials`.
private final class ItemFoldResults: @unchecked Sendable {
  // `@unchecked`: `items`, `fields` and `ranges` are only read; each part writes only its own
  // element of `columns` and `initials`, before `concurrentPerform` returns.
  let items: [Item]
  let fields: [String]
  let ranges: [Range<Int>]
  var columns: [[FoldedColumn]]
  var initials: [[FoldedColumn?]]

  init(items: [Item], fields: [String], parts: Int) {
    self.items = items
    self.fields = fields
    let size = (items.count + parts - 1) / parts
    ranges = (0..<parts).map { ($0 * size)..<min(items.count, ($0 + 1) * size) }
    columns = Array(repeating: Array(repeating: FoldedColumn(), count: fields.count), count: parts)
    initials = Array(repeating: Array(repeating: nil, count: fields.count), count: parts)
  }

  func fold(part: Int) {
    var partColumns = Array(repeating: FoldedColumn(), count: fields.count)
    var partInitials: [FoldedColumn?] = Array(repeating: nil, count: fields.count)
    for index in ranges[part] {
      let item = items[index]
      for (field, name) in fields.enumerated() {
        let values = SearchIndex.strings(of: item[name])
        partColumns[field].append(values)
        let hasHangul = values.contains { TextFolding.initialConsonants(of: $0) != nil }
        if partInitials[field] == nil, hasHangul {
          var created = FoldedColumn()
          created.appendEmpty(count: index - ranges[part].lowerBound)
          partInitials[field] = created
        }
        partInitials[field]?.appendInitials(values)
      }
    }
    columns[part] = partColumns
    initials[part] = partInitials
  }
}

/// Per-part results of a parallel fold; each part writes only its own slots of the arrays.
private final class ChunkResults: @unchecked Sendable {
  // `@unchecked`: `buffer` and `lines` are only read, and part *i* writes only `columns[i]`,
  // `initials[i]` and `lineCounts[i]`, all before `concurrentPerform` returns.
  var columns: [FoldedColumn]
  var initials: [FoldedColumn?]
  var lineCounts: [Int]
  let buffer: UnsafeBufferPointer<UInt8>
  let lines: [Range<Int>]

  init(count: Int, buffer: UnsafeBufferPointer<UInt8>, lines: [Range<Int>]) {
    columns = Array(repeating: FoldedColumn(), count: count)
    initials = Array(repeating: nil, count: count)
    lineCounts = Array(repeating: 0, count: count)
    self.buffer = buffer
    self.lines = lines
  }

  func fold(part: Int, of parts: Int) {
    let size = (lines.count + parts - 1) / parts
    let range = (part * size)..<min(lines.count, (part + 1) * size)
    var column = FoldedColumn()
    var initialColumn: FoldedColumn?
    if let first = range.first, let last = range.last {
      column.reserve(
        bytes: lines[last].upperBound - lines[first].lowerBound + range.count, slots: range.count)
    }
    for index in range {
      let line = UnsafeBufferPointer(rebasing: buffer[lines[index]])
      // Most lines are ASCII: one pass tells, and they need neither validation nor initials.
      if !line.contains(where: { $0 >= 0x80 }) {
        column.appendFoldedASCII(line)
        initialColumn?.appendEmpty(count: 1)
        continue
      }
      if UTF8Validation.isValid(line) {
        column.appendFolded(utf8: line)
      } else {
        column.append([String(decoding: line, as: UTF8.self)])
      }
      // Initial-consonant keys only where a line has Hangul syllables (lead bytes EA…ED).
      if line.contains(where: { $0 >= 0xEA && $0 <= 0xED }) {
        let text = String(decoding: line, as: UTF8.self)
        if initialColumn == nil, TextFolding.initialConsonants(of: text) != nil {
          var created = FoldedColumn()
          created.appendEmpty(count: index - range.lowerBound)
          initialColumn = created
        }
        initialColumn?.appendInitials([text])
      } else {
        initialColumn?.appendEmpty(count: 1)
      }
    }
    columns[part] = column
    initials[part] = initialColumn
    lineCounts[part] = range.count
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
