/// A set of slots as a bit vector: the union of hits from several fields without sorting.
struct SlotSet {
  private var words: [UInt64]

  init(capacity: Int) {
    words = [UInt64](repeating: 0, count: (capacity + 63) / 64)
  }

  mutating func insert(_ slot: Int) {
    words[slot >> 6] |= 1 << UInt64(slot & 63)
  }

  func contains(_ slot: Int) -> Bool {
    words[slot >> 6] & (1 << UInt64(slot & 63)) != 0
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
