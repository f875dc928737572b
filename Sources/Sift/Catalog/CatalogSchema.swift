/// What a catalog holds and how it is searched: its fields, which one is the title, which one
/// groups items, its scope bar and the tokens it suggests.
public struct CatalogSchema: Hashable, Sendable, Codable {
  /// The catalog's name in commands (`candies`).
  public var name: String
  /// What the navigation bar shows ("Candies").
  public var title: String
  public var fields: [FieldDefinition]
  /// The field shown as each row's title; relevance tiers compare against it.
  public var titleField: String
  /// The field category scopes and `category:` tokens filter on.
  public var categoryField: String?
  /// The scope bar, first button first. Empty: no scope bar.
  public var scopes: [Scope]
  /// Tokens offered while typing besides the categories (`year:>=2010` as "Since 2010").
  public var extraTokens: [SearchToken]

  public init(
    name: String, title: String? = nil, fields: [FieldDefinition], titleField: String,
    categoryField: String? = nil, scopes: [Scope] = [], extraTokens: [SearchToken] = []
  ) {
    self.name = name
    self.title = title ?? name.prefix(1).uppercased() + name.dropFirst()
    self.fields = fields
    self.titleField = titleField
    self.categoryField = categoryField
    self.scopes = scopes
    self.extraTokens = extraTokens
  }

  /// The field a query names, by name or label, ignoring case, spaces and underscores
  /// (`year`, `Year introduced`, `yearintroduced`); `category` names the category field.
  public func field(named name: String) -> FieldDefinition? {
    let key = Self.fieldKey(name)
    if let field = fields.first(where: { Self.fieldKey($0.name) == key }) { return field }
    if let field = fields.first(where: { Self.fieldKey($0.label) == key }) { return field }
    if key == "category", let categoryField { return fields.first { $0.name == categoryField } }
    return nil
  }

  /// Every name a query may use for a field, for "did you mean" suggestions.
  public var fieldNames: [String] {
    var names = fields.map(\.name)
    if categoryField != nil, !names.contains("category") { names.append("category") }
    return names
  }

  /// The scope titles, first button first (UISearchBar's `scopeButtonTitles`).
  public var scopeTitles: [String] { scopes.map(\.title) }

  /// The category values named by the scope bar, in its order.
  public var scopeCategories: [String] {
    scopes.compactMap { if case .category(let value) = $0.filter { value } else { nil } }
  }

  /// The tokens offered as suggestions: one per category of the scope bar, then `extraTokens`.
  public var suggestedTokens: [SearchToken] {
    let categories = scopes.compactMap { scope -> SearchToken? in
      guard case .category(let value) = scope.filter else { return nil }
      return SearchToken(text: value, icon: scope.icon, identifier: "category:\(value)")
    }
    return categories + extraTokens
  }

  static func fieldKey(_ name: String) -> String {
    String(name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" })
  }
}
