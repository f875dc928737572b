import SiftTestSupport
import Testing

@testable import Sift

/// Slot ids are given at once (a build, a compaction) and appended one by one (edits), sealed
/// in blocks so that an append to ids a search still shares copies one block. Held to a plain
/// array through random appends past several blocks, with copies taken along the way that must
/// keep what they held.
@Suite("Slot ids", .tags(.unit))
struct SlotIDsTests {
  @Test(
    "appends across blocks read back as a plain array, and copies keep what they held",
    arguments: [0, 1, 4_095, 5_000])
  func appendsMatchAnArray(given: Int) {
    let seed = UInt64(given) &+ 0x5107
    print("SlotIDsTests seed \(seed)")
    var random = SplitMix64(seed: seed)
    var reference = (0..<given).map { "given \($0)" }
    var ids = SlotIDs(reference)
    var copies: [(SlotIDs<String>, [String])] = []
    let appends = SlotIDs<String>.blockSize * 2 + Int.random(in: 1..<500, using: &random)
    for n in 0..<appends {
      if Int.random(in: 0..<1_000, using: &random) == 0 { copies.append((ids, reference)) }
      ids.append("appended \(n)")
      reference.append("appended \(n)")
    }
    #expect(ids.count == reference.count)
    #expect(Array(ids) == reference)
    for slot in [0, given, given + SlotIDs<String>.blockSize, reference.count - 1]
    where slot < reference.count {
      #expect(ids[slot] == reference[slot], "slot \(slot)")
    }
    for (copy, held) in copies { #expect(Array(copy) == held) }
    var walked: [String] = []
    ids.forEach { slot, id in
      #expect(slot == walked.count)
      walked.append(id)
    }
    #expect(walked == reference)
  }

  @Test("archived ids, then appended ones, read alike by subscript and by a walk")
  func archivedThenAppended() {
    let names = ["Đà Nẵng", "", "Zürich", "北京"]
    let bytes = names.flatMap(\.utf8)
    var starts: [UInt32] = [0]
    for name in names { starts.append(starts.last! + UInt32(name.utf8.count)) }
    var ids = SlotIDs<String>(
      archived: IndexBuffer(bytes), starts: IndexBuffer(starts),
      make: { String(decoding: $0, as: UTF8.self) })
    for n in 0..<(SlotIDs<String>.blockSize + 3) { ids.append("appended \(n)") }
    let reference = names + (0..<(SlotIDs<String>.blockSize + 3)).map { "appended \($0)" }
    #expect(Array(ids) == reference)
    var walked: [String] = []
    ids.forEach { slot, id in
      #expect(slot == walked.count)
      walked.append(id)
    }
    #expect(walked == reference)
  }
}
