/// Elements of an index kept in one contiguous buffer that is either the index's own (an array)
/// or *borrowed*: memory someone else keeps alive — an index file mapped by the catalog store —
/// so that opening a catalog reads its index where it lies instead of copying it.
///
/// A borrowed buffer is never written: the first change copies it into an array of its own
/// (copy on write, as an array does when it is shared). Reading either kind costs the same.
struct IndexBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
  // Sendable: a borrowed buffer is read-only memory kept alive by `owner`, which is Sendable;
  // an owned one is an array.
  private var owned: [Element]
  private var borrowed: UnsafeBufferPointer<Element>?
  private var owner: (any AnyObject & Sendable)?

  init() { owned = [] }

  init(_ elements: [Element]) { owned = elements }

  /// A buffer over `elements`, which stay valid, unchanged, as long as `owner` lives.
  init(borrowing elements: UnsafeBufferPointer<Element>, keptBy owner: any AnyObject & Sendable) {
    owned = []
    borrowed = elements
    self.owner = owner
  }

  /// Whether the elements are borrowed (not yet copied by a change).
  var isBorrowed: Bool { borrowed != nil }

  func withUnsafeBufferPointer<Result>(
    _ body: (UnsafeBufferPointer<Element>) throws -> Result
  ) rethrows -> Result {
    if let borrowed { return try body(borrowed) }
    return try owned.withUnsafeBufferPointer(body)
  }

  func withUnsafeBytes<Result>(
    _ body: (UnsafeRawBufferPointer) throws -> Result
  ) rethrows -> Result {
    try withUnsafeBufferPointer { try body(UnsafeRawBufferPointer($0)) }
  }

  /// Makes the elements the buffer's own, so that they can change.
  private mutating func own() {
    guard let borrowed else { return }
    owned = Array(borrowed)
    self.borrowed = nil
    owner = nil
  }

  mutating func withUnsafeMutableBufferPointer<Result>(
    _ body: (inout UnsafeMutableBufferPointer<Element>) throws -> Result
  ) rethrows -> Result {
    own()
    return try owned.withUnsafeMutableBufferPointer(body)
  }

  /// Calls `body` with the elements as an array of the buffer's own, to change in place.
  mutating func withArray<Result>(_ body: (inout [Element]) throws -> Result) rethrows -> Result {
    own()
    return try body(&owned)
  }

  mutating func reserveCapacity(_ capacity: Int) {
    own()
    owned.reserveCapacity(capacity)
  }
}

extension IndexBuffer: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
  var startIndex: Int { 0 }
  var endIndex: Int { borrowed?.count ?? owned.count }

  subscript(position: Int) -> Element {
    @inline(__always) get {
      if let borrowed { return borrowed[position] }
      return owned[position]
    }
    set {
      own()
      owned[position] = newValue
    }
  }

  mutating func replaceSubrange<C: Collection>(
    _ subrange: Range<Int>, with newElements: C
  ) where C.Element == Element {
    own()
    owned.replaceSubrange(subrange, with: newElements)
  }

  mutating func append(_ element: Element) {
    own()
    owned.append(element)
  }

  mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
    own()
    owned.append(contentsOf: elements)
  }
}

extension IndexBuffer where Element == UInt32 {
  /// Whether these run from 0 to `count` without going back: offsets into `count` elements read
  /// from an archive, checked once so that no lookup through them leaves the buffer.
  func areOffsets(into count: Int) -> Bool {
    guard UInt64(count) <= UInt64(UInt32.max) else { return false }
    return withUnsafeBufferPointer { starts in
      starts.first == 0 && starts.last == UInt32(count)
        && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 }
    }
  }
}

extension IndexBuffer: ExpressibleByArrayLiteral {
  init(arrayLiteral elements: Element...) { owned = elements }
}

extension IndexBuffer: Equatable where Element: Equatable {
  static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
}
