/// A set of slots as a bit vector: the union of hits from several fields without sorting.
struct SlotSet {
  /// Bit `slot & 63` of word `slot >> 6` for each slot held.
  private(set) var words: [UInt64]

  init(capacity: Int) {
    words = [UInt64](repeating: 0, count: (capacity + 63) / 64)
  }

  mutating func insert(_ slot: Int) {
    words[slot >> 6] |= 1 << UInt64(slot & 63)
  }

  /// Keeps only the slots `other` holds too (of the same capacity).
  mutating func formIntersection(_ other: SlotSet) {
    for index in words.indices { words[index] &= other.words[index] }
  }

  func contains(_ slot: Int) -> Bool {
    words[slot >> 6] & (1 << UInt64(slot & 63)) != 0
  }

  /// `slots` (any order, repeats allowed, each below `capacity`) once each, in increasing
  /// order: sorted in place when they are few, through a set of every slot when they are many
  /// (past one in 32, reading the set back costs less than sorting them).
  static func distinctSorted(_ slots: consuming [Int32], capacity: Int) -> [Int32] {
    if slots.count > capacity / 32 {
      var set = SlotSet(capacity: capacity)
      for slot in slots { set.insert(Int(slot)) }
      return set.sorted
    }
    slots.sort()
    var kept = 0
    for index in slots.indices where kept == 0 || slots[kept - 1] != slots[index] {
      slots[kept] = slots[index]
      kept += 1
    }
    slots.removeLast(slots.count - kept)
    return slots
  }

  /// The members in increasing order.
  var sorted: [Int32] {
    var result: [Int32] = []
    for (index, word) in words.enumerated() where word != 0 {
      var bits = word
      while bits != 0 {
        let bit = bits.trailingZeroBitCount
        result.append(Int32(index << 6 + bit))
        bits &= bits - 1
      }
    }
    return result
  }
}
