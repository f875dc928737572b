/// Each slot's id. An index read from an archive keeps the archived ids as they lie there (their
/// UTF-8 bytes back to back, borrowed from a mapped file) and makes an id only when one is read:
/// a search reads twenty, where making all 235,000 of the cities' was a tenth of a one-shot
/// `sift search`. Ids appended since are kept as values.
///
/// An edit appends to an index whose ids the last search's matches still share (they read
/// their rows through them), so appending must not copy every id: ids given at once are kept
/// whole and never appended to, and appended ids are sealed in blocks of `blockSize`, so an
/// append to shared ids copies at most one block.
struct SlotIDs<ID: Hashable & Sendable>: RandomAccessCollection, Sendable {
  /// The first slots' ids, as archived; nil when every id is a value.
  private var archived: Archived?
  /// The ids given when made (a compaction's, a build's), after the archived ones.
  private var given: [ID]
  /// Full blocks of `blockSize` ids appended since, never changed again.
  private var sealed: [[ID]]
  /// The ids appended after the sealed blocks: fewer than `blockSize`.
  private var appended: [ID]

  /// How many appended ids a block holds: what an append to shared ids copies at most.
  static var blockSize: Int { 4_096 }

  /// Archived ids: slot *i*'s is made by `make` from `bytes[starts[i]..<starts[i + 1]]`.
  struct Archived: Sendable {
    let bytes: IndexBuffer<UInt8>
    let starts: IndexBuffer<UInt32>
    let make: @Sendable (UnsafeBufferPointer<UInt8>) -> ID

    var count: Int { starts.count - 1 }

    func id(at slot: Int) -> ID {
      bytes.withUnsafeBufferPointer { bytes in
        make(UnsafeBufferPointer(rebasing: bytes[Int(starts[slot])..<Int(starts[slot + 1])]))
      }
    }
  }

  init(_ ids: [ID] = []) {
    archived = nil
    given = ids
    sealed = []
    appended = []
  }

  /// Ids read from an archive; `starts` begins with 0, ends with `bytes.count` and never goes
  /// back (the reader checked).
  init(
    archived bytes: IndexBuffer<UInt8>, starts: IndexBuffer<UInt32>,
    make: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> ID
  ) {
    archived = Archived(bytes: bytes, starts: starts, make: make)
    given = []
    sealed = []
    appended = []
  }

  var startIndex: Int { 0 }
  var endIndex: Int {
    (archived?.count ?? 0) + given.count + sealed.count * Self.blockSize + appended.count
  }

  subscript(slot: Int) -> ID {
    var slot = slot
    if let archived {
      if slot < archived.count { return archived.id(at: slot) }
      slot -= archived.count
    }
    if slot < given.count { return given[slot] }
    slot -= given.count
    let block = slot / Self.blockSize
    return block < sealed.count
      ? sealed[block][slot % Self.blockSize] : appended[slot - sealed.count * Self.blockSize]
  }

  /// Calls `body` with each slot and its id, in slot order: one walk over the archive's bytes
  /// and the blocks, where reading through the subscript would copy this value per id.
  func forEach(_ body: (_ slot: Int, _ id: ID) -> Void) {
    var slot = 0
    if let archived {
      archived.bytes.withUnsafeBufferPointer { bytes in
        archived.starts.withUnsafeBufferPointer { starts in
          for index in 0..<archived.count {
            body(
              slot,
              archived.make(
                UnsafeBufferPointer(rebasing: bytes[Int(starts[index])..<Int(starts[index + 1])])))
            slot += 1
          }
        }
      }
    }
    for part in [given] + sealed + [appended] {
      for id in part {
        body(slot, id)
        slot += 1
      }
    }
  }

  mutating func append(_ id: ID) {
    appended.append(id)
    if appended.count == Self.blockSize {
      sealed.append(appended)
      appended = []
      appended.reserveCapacity(Self.blockSize)
    }
  }
}
