/// Where a `SearchCollection` that does not hold its elements reads the ones it shows — a
/// database table, for a catalog too big to keep in memory as values.
///
/// The collection keeps only its index (what it searches) and asks the source for the few
/// elements on screen, or written out, when they are needed. The source is the truth: an edit
/// is written to it first and then applied to the collection (`SearchController.commit(_:to:)`
/// does both), so the collection never holds a value the source lost.
public protocol ElementSource<Element>: Sendable {
  associatedtype Element: Identifiable & Sendable where Element.ID: Sendable

  /// The elements that have these ids, in any order; ids the source does not know are left
  /// out. A source that cannot be read (an I/O error) returns what it could read.
  func elements(withIDs ids: [Element.ID]) -> [Element]
}

/// The elements a `SearchCollection` shows: held as values, or read from a source when shown.
enum ElementStorage<Element: Identifiable & Sendable>: Sendable where Element.ID: Sendable {
  case held([Element.ID: Element])
  case fetched(any ElementSource<Element>)

  /// The elements with `ids`, by id: the held ones, or one read from the source.
  func found(_ ids: [Element.ID]) -> [Element.ID: Element] {
    switch self {
    case .held(let elements):
      return elements
    case .fetched(let source):
      guard !ids.isEmpty else { return [:] }
      return Dictionary(
        source.elements(withIDs: ids).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
  }

  /// The elements with `ids`, in their order; nil where none has that id (one read).
  func elements(_ ids: [Element.ID]) -> [Element?] {
    let found = found(ids)
    return ids.map { found[$0] }
  }

  func element(_ id: Element.ID) -> Element? {
    switch self {
    case .held(let elements): elements[id]
    case .fetched(let source): source.elements(withIDs: [id]).first { $0.id == id }
    }
  }

  /// Keeps an added or updated element (a source already has it).
  mutating func store(_ element: Element) {
    guard case .held(var elements) = self else { return }
    self = .held([:])  // the dictionary stays uniquely referenced while it changes
    elements[element.id] = element
    self = .held(elements)
  }

  mutating func remove(_ id: Element.ID) {
    guard case .held(var elements) = self else { return }
    self = .held([:])
    elements[id] = nil
    self = .held(elements)
  }
}
