/// Each slot's id. An index read from an archive keeps the archived ids as they lie there (their
/// UTF-8 bytes back to back, borrowed from a mapped file) and makes an id only when one is read:
/// a search reads twenty, where making all 235,000 of the cities' was a tenth of a one-shot
/// `sift search`. Ids appended since are kept as values.
struct SlotIDs<ID: Hashable & Sendable>: RandomAccessCollection, Sendable {
  /// The first slots' ids, as archived; nil when every id is a value.
  private var archived: Archived?
  /// The ids of the slots after the archived ones.
  private var appended: [ID]

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
    appended = ids
  }

  /// Ids read from an archive; `starts` begins with 0, ends with `bytes.count` and never goes
  /// back (the reader checked).
  init(
    archived bytes: IndexBuffer<UInt8>, starts: IndexBuffer<UInt32>,
    make: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> ID
  ) {
    archived = Archived(bytes: bytes, starts: starts, make: make)
    appended = []
  }

  var startIndex: Int { 0 }
  var endIndex: Int { (archived?.count ?? 0) + appended.count }

  subscript(slot: Int) -> ID {
    if let archived {
      return slot < archived.count ? archived.id(at: slot) : appended[slot - archived.count]
    }
    return appended[slot]
  }

  mutating func append(_ id: ID) { appended.append(id) }
}
