/// Which slots hold a live item. Every slot is live until the first is killed, and an index read
/// from a file starts that way: no array is made (nor a page touched) for it until an edit.
struct LiveSlots: Sendable {
  /// Per slot, whether it is live; nil while every slot is.
  private var flags: [Bool]?
  /// The number of slots.
  private(set) var count = 0

  /// `count` slots, every one live.
  init(allLive count: Int = 0) { self.count = count }

  /// Whether no slot was killed: a scan need not ask.
  var areAllLive: Bool { flags == nil }

  subscript(slot: Int) -> Bool {
    guard let flags else {
      precondition(slot >= 0 && slot < count, "slot out of range")
      return true
    }
    return flags[slot]
  }

  /// Adds a live slot.
  mutating func appendLive() {
    flags?.append(true)
    count += 1
  }

  mutating func kill(_ slot: Int) {
    if flags == nil { flags = Array(repeating: true, count: count) }
    flags![slot] = false
  }

  /// Calls `body` with the flags, or nil while every slot is live.
  func withFlags<Result>(_ body: (UnsafeBufferPointer<Bool>?) throws -> Result) rethrows -> Result {
    guard let flags else { return try body(nil) }
    return try flags.withUnsafeBufferPointer { try body($0) }
  }
}

/// Per slot, its key in catalog order (ties in relevance are broken by it). While no edit moved
/// an item, the key is the slot itself — so an index read from a file, whose slots are in
/// catalog order, makes no array for it.
struct CatalogOrderKeys: Sendable {
  /// The keys; nil while each slot's key is the slot.
  private var keys: [Int64]?
  private(set) var count = 0

  /// `count` slots whose keys are the slots themselves.
  init(slotOrder count: Int = 0) { self.count = count }

  init(_ keys: [Int64]) {
    self.keys = keys
    count = keys.count
  }

  subscript(slot: Int) -> Int64 {
    guard let keys else {
      precondition(slot >= 0 && slot < count, "slot out of range")
      return Int64(slot)
    }
    return keys[slot]
  }

  mutating func append(_ key: Int64) {
    if keys == nil, key == Int64(count) {
      count += 1
      return
    }
    if keys == nil { keys = (0..<Int64(count)).map { $0 } }
    keys!.append(key)
    count += 1
  }
}
