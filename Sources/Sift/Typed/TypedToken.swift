/// A token of the search field for an app's own type, naming its fields by key path:
/// `.category("Chocolate")`, `.range(\.year, 2010...)`, `.range(\.price, ..<20)`.
///
/// The schema turns it into the `SearchToken` the query language reads (`year:>=2010`), so a
/// key path that is not one of its number fields is an error that names it, not a silent miss.
public struct TypedToken<Element: Sendable>: Hashable, Identifiable, Sendable {
  enum Filter: Sendable {
    case category(String)
    case number(any AnyKeyPath & Sendable, NumberPredicate)
    case token(SearchToken)
  }

  let filter: Filter
  /// What the token shows; nil: made from the filter ("Chocolate", "Year ≥ 2010").
  public var text: String?
  /// A symbol name or emoji shown on the token.
  public var icon: String?

  /// Items of this category.
  public static func category(_ value: String, icon: String? = nil) -> Self {
    Self(filter: .category(value), text: value, icon: icon)
  }

  /// Any token of the query language (`year:>=2010`), as the dynamic door has it.
  public static func token(_ token: SearchToken) -> Self {
    Self(filter: .token(token), text: token.text, icon: token.icon)
  }

  /// Items whose number at `keyPath` is in the range (`2010...`, `...1980`, `..<20`,
  /// `2000...2010`).
  public static func range<Value, Bound: BinaryInteger>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: PartialRangeFrom<Bound>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(
      filter: .number(keyPath, .greaterOrEqual(Double(range.lowerBound))), text: text, icon: icon)
  }

  public static func range<Value, Bound: BinaryInteger>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: PartialRangeThrough<Bound>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(filter: .number(keyPath, .lessOrEqual(Double(range.upperBound))), text: text, icon: icon)
  }

  public static func range<Value, Bound: BinaryInteger>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: PartialRangeUpTo<Bound>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(filter: .number(keyPath, .less(Double(range.upperBound))), text: text, icon: icon)
  }

  public static func range<Value, Bound: BinaryInteger>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: ClosedRange<Bound>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(
      filter: .number(keyPath, .between(Double(range.lowerBound), Double(range.upperBound))),
      text: text, icon: icon)
  }

  /// Items whose number at `keyPath` is in a range of fractional bounds (prices).
  public static func range<Value>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: PartialRangeUpTo<Double>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(filter: .number(keyPath, .less(range.upperBound)), text: text, icon: icon)
  }

  public static func range<Value>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: PartialRangeFrom<Double>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(filter: .number(keyPath, .greaterOrEqual(range.lowerBound)), text: text, icon: icon)
  }

  public static func range<Value>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ range: ClosedRange<Double>,
    text: String? = nil, icon: String? = nil
  ) -> Self {
    Self(
      filter: .number(keyPath, .between(range.lowerBound, range.upperBound)), text: text,
      icon: icon)
  }

  /// Items whose number at `keyPath` equals `value`.
  public static func equal<Value, Bound: BinaryInteger>(
    _ keyPath: any KeyPath<Element, Value> & Sendable, _ value: Bound, text: String? = nil,
    icon: String? = nil
  ) -> Self {
    Self(filter: .number(keyPath, .equal(Double(value))), text: text, icon: icon)
  }

  /// Stable while the token stands for the same filter.
  public var id: String {
    switch filter {
    case .category(let value): "category:\(value)"
    case .number(let path, let predicate): "\(path as AnyKeyPath):\(predicate)"
    case .token(let token): token.identifier
    }
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.id == rhs.id && lhs.text == rhs.text && lhs.icon == rhs.icon
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

extension SearchSchema {
  /// The query-language token that `token` stands for.
  ///
  /// - Throws: `CatalogSchemaError.undeclaredKeyPath` for a key path that is not a number field.
  public func searchToken(for token: TypedToken<Element>) throws(CatalogSchemaError) -> SearchToken
  {
    switch token.filter {
    case .category(let value):
      let icon = token.icon ?? catalog.scopes.first { $0.filter == .category(value) }?.icon
      return SearchToken(text: token.text ?? value, icon: icon, identifier: "category:\(value)")
    case .number(let path, let predicate):
      guard let field = field(for: path as AnyKeyPath), field.kind == .number else {
        throw .undeclaredKeyPath(String(describing: path as AnyKeyPath), role: "token")
      }
      return SearchToken(
        text: token.text ?? "\(field.label) \(predicate.readable)", icon: token.icon,
        identifier: "\(field.name):\(predicate)")
    case .token(let searchToken):
      return searchToken
    }
  }

  /// The typed token standing for a query-language token: a category token as `.category`,
  /// anything else as it is.
  public func typedToken(for token: SearchToken) -> TypedToken<Element> {
    let prefix = "category:"
    if token.identifier.hasPrefix(prefix), catalog.categoryField != nil {
      return .category(String(token.identifier.dropFirst(prefix.count)), icon: token.icon)
    }
    return .token(token)
  }
}

extension NumberPredicate {
  /// The predicate as a token shows it: "≥ 2010", "< 20", "2000–2010".
  var readable: String {
    switch self {
    case .equal(let v): "= \(FieldValue.format(v))"
    case .less(let v): "< \(FieldValue.format(v))"
    case .lessOrEqual(let v): "≤ \(FieldValue.format(v))"
    case .greater(let v): "> \(FieldValue.format(v))"
    case .greaterOrEqual(let v): "≥ \(FieldValue.format(v))"
    case .between(let low, let high): "\(FieldValue.format(low))–\(FieldValue.format(high))"
    }
  }
}
