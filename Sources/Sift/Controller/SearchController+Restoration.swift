import Foundation

extension SearchController {
  /// What UIStateRestoring saves for the search (the Apple sample's restoration): active state,
  /// focus, text, tokens, scope, sort and selection. Codable; `version` guards against files from a
  /// newer Sift.
  public struct Snapshot: Hashable, Sendable, Codable {
    public static let currentVersion = 1

    public var version: Int
    public var isActive: Bool
    public var isFirstResponder: Bool
    public var text: String
    public var tokens: [SearchToken]
    public var selectedScopeIndex: Int
    /// The title of the selected scope, so a changed scope bar is noticed.
    public var selectedScopeTitle: String?
    /// The sort as `SearchSort.description` writes it (`price:desc`); nil: relevance.
    public var sort: String?
    public var selection: ItemID?

    public init(
      version: Int = Snapshot.currentVersion, isActive: Bool = false,
      isFirstResponder: Bool = false, text: String = "", tokens: [SearchToken] = [],
      selectedScopeIndex: Int = 0, selectedScopeTitle: String? = nil, sort: String? = nil,
      selection: ItemID? = nil
    ) {
      self.sort = sort
      self.version = version
      self.isActive = isActive
      self.isFirstResponder = isFirstResponder
      self.text = text
      self.tokens = tokens
      self.selectedScopeIndex = selectedScopeIndex
      self.selectedScopeTitle = selectedScopeTitle
      self.selection = selection
    }
  }

  /// Why part of a saved state was not restored. Restoration never fails: what cannot be used
  /// is left at its clean default and reported.
  public enum RestorationProblem: Hashable, Sendable, CustomStringConvertible {
    /// The data is not a snapshot (garbage, truncated, wrong types); nothing was restored.
    case unreadable(String)
    /// Saved by a newer Sift; nothing was restored.
    case newerVersion(Int)
    /// The saved scope is not on this catalog's scope bar; the first scope is selected.
    case unknownScope(String)
    /// A saved token does not stand for one filter here; it was dropped.
    case invalidToken(String)
    /// The saved sort names no field this catalog sorts by; results go by relevance.
    case unknownSort(String)
    /// The selected item is gone or not shown; nothing is selected.
    case missingSelection(ItemID)

    public var description: String {
      switch self {
      case .unreadable(let reason): "saved search state is unreadable (\(reason)); starting clean"
      case .newerVersion(let version):
        "saved search state is from a newer Sift (version \(version)); starting clean"
      case .unknownScope(let scope):
        "saved scope \"\(scope)\" is not on the scope bar; using the first"
      case .invalidToken(let identifier): "saved token \"\(identifier)\" is not usable; dropped"
      case .unknownSort(let sort): "saved sort \"\(sort)\" is not a field to sort by; by relevance"
      case .missingSelection(let id): "saved selection \"\(id)\" is not shown; nothing selected"
      }
    }
  }

  /// The state to save.
  public var snapshot: Snapshot {
    Snapshot(
      isActive: isActive, isFirstResponder: isFirstResponder, text: text, tokens: tokens,
      selectedScopeIndex: selectedScopeIndex,
      selectedScopeTitle: scopeTitles.indices.contains(selectedScopeIndex)
        ? scopeTitles[selectedScopeIndex] : nil,
      sort: sort?.description, selection: selection)
  }

  /// The snapshot as JSON.
  public func encodedSnapshot() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    // Encoding plain strings, numbers and arrays cannot fail.
    return (try? encoder.encode(snapshot)) ?? Data()
  }

  /// Restores a snapshot exactly, or as much of it as is usable here, and reports the rest.
  @discardableResult
  public mutating func restore(_ snapshot: Snapshot) -> [RestorationProblem] {
    guard snapshot.version <= Snapshot.currentVersion else {
      resetToClean()
      return [.newerVersion(snapshot.version)]
    }
    var problems: [RestorationProblem] = []
    var scope = snapshot.selectedScopeIndex
    let titles = scopeTitles
    if let title = snapshot.selectedScopeTitle {
      if titles.indices.contains(scope), titles[scope] == title {
        // as saved
      } else if let byTitle = titles.firstIndex(of: title) {
        scope = byTitle
      } else {
        problems.append(.unknownScope(title))
        scope = 0
      }
    } else if scope != 0 && !titles.indices.contains(scope) {
      problems.append(.unknownScope("#\(scope)"))
      scope = 0
    }
    var tokens: [SearchToken] = []
    for token in snapshot.tokens {
      if case .success = Query.term(forToken: token.identifier, schema: schema) {
        tokens.append(token)
      } else {
        problems.append(.invalidToken(token.identifier))
      }
    }
    let sort = snapshot.sort.flatMap(SearchSort.init(parsing:)).flatMap(schema.resolved)
    if let saved = snapshot.sort, sort == nil { problems.append(.unknownSort(saved)) }
    setState(
      isActive: snapshot.isActive, isFirstResponder: snapshot.isFirstResponder,
      text: snapshot.text, tokens: tokens, selectedScopeIndex: max(0, scope), sort: sort,
      selection: snapshot.selection)
    if let saved = snapshot.selection, selection != saved {
      problems.append(.missingSelection(saved))
    }
    return problems
  }

  /// Restores from JSON written by `encodedSnapshot()`. Anything unreadable gives a clean
  /// start and a reported problem, never a crash.
  @discardableResult
  public mutating func restore(from data: Data) -> [RestorationProblem] {
    do {
      let snapshot = try JSONDecoder().decode(Snapshot.self, from: data)
      return restore(snapshot)
    } catch {
      resetToClean()
      return [.unreadable(Self.reason(error))]
    }
  }

  private mutating func resetToClean() {
    setState(
      isActive: false, isFirstResponder: false, text: "", tokens: [], selectedScopeIndex: 0,
      sort: nil, selection: nil)
  }

  private static func reason(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context): context.debugDescription
    case DecodingError.keyNotFound(let key, _): "missing \(key.stringValue)"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
    default: "not JSON"
    }
  }
}
