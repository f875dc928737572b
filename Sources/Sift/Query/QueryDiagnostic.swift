/// Why part of a query was not read the way it looks: the forgiving parser still searches, and
/// says so here; the strict parser throws the first one as a `QueryError`.
public struct QueryDiagnostic: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Problem: Hashable, Sendable {
    /// `prise:10`: no such field; searched as plain text.
    case unknownField(String, suggestion: String?)
    /// `timezone:utc`: a field the catalog keeps but does not search; searched as plain text.
    case storedField(String)
    /// `price:` or `price:<`: the filter has no value yet; searched as plain text.
    case missingValue(field: String)
    /// `price:cheap`: a number field needs a number; searched as plain text.
    case invalidNumber(field: String, value: String)
    /// `year:2010..2000`: nothing can be in the range.
    case emptyRange(field: String)
    /// A quote with no closing quote: the phrase runs to the end.
    case unclosedQuote
    /// A `-` with nothing after it negates nothing and is ignored.
    case loneMinus
    /// A term that folds to nothing (only accents or invisible characters) is ignored.
    case emptyTerm(String)
    /// A token whose identifier does not read as exactly one term is ignored.
    case invalidToken(String)
    /// A `|` (or `OR`) with no term on one side joins nothing and is ignored.
    case danglingOr
  }

  public var problem: Problem
  /// The characters of the query text concerned.
  public var range: Range<Int>

  public init(_ problem: Problem, range: Range<Int>) {
    self.problem = problem
    self.range = range
  }

  /// One line that says what happened and what to do.
  public var message: String {
    switch problem {
    case .unknownField(let name, let suggestion):
      let hint = suggestion.map { " — did you mean `\($0)`?" } ?? ""
      return "unknown field `\(name)`, searched as text\(hint)"
    case .storedField(let name):
      return
        "field `\(name)` is kept but not searched (import with --text or --number \(name) to search it); searched as text"
    case .missingValue(let field):
      return
        "`\(field):` needs a value (e.g. `\(field):<10` or `\(field):2000..2010`); searched as text"
    case .invalidNumber(let field, let value):
      return "`\(field)` takes a number, not `\(value)`; searched as text"
    case .emptyRange(let field):
      return "the range for `\(field)` is empty: its start is above its end"
    case .unclosedQuote:
      return "unclosed quote: the phrase runs to the end"
    case .loneMinus:
      return "a lone `-` negates nothing and is ignored"
    case .emptyTerm(let term):
      return "`\(term)` has no searchable characters and is ignored"
    case .invalidToken(let identifier):
      return "token `\(identifier)` is not one filter and is ignored"
    case .danglingOr:
      return "`|` needs a term on each side (`rose | tulip`); ignored"
    }
  }

  public var description: String { "column \(range.lowerBound + 1): \(message)" }
}

/// A fault in a query given to the strict parser, with its place.
public struct QueryError: Error, Hashable, Sendable, CustomStringConvertible {
  public var diagnostic: QueryDiagnostic
  public var query: String

  public var description: String {
    "query \"\(query)\", column \(diagnostic.range.lowerBound + 1): \(diagnostic.message)"
  }
}
