/// One button of a catalog's scope bar.
///
/// A *category scope* (CandySearch's All/Chocolate/Hard/Other) keeps the items of one category;
/// a *field scope* (FoodTracker's Name/Rating) chooses the fields that text terms search.
public struct Scope: Hashable, Sendable, Codable {
  public enum Filter: Hashable, Sendable {
    /// Every item, every searchable field.
    case all
    /// Items whose category equals this value.
    case category(String)
    /// Text terms search only these fields (number fields: the term equals the value).
    case fields([String])
  }

  public var title: String
  public var filter: Filter
  /// A symbol name or emoji shown on the token that stands for this scope's category.
  public var icon: String?

  public init(title: String, filter: Filter, icon: String? = nil) {
    self.title = title
    self.filter = filter
    self.icon = icon
  }

  public static func all(_ title: String = "All") -> Scope { Scope(title: title, filter: .all) }
  public static func category(_ value: String, title: String? = nil, icon: String? = nil) -> Scope {
    Scope(title: title ?? value, filter: .category(value), icon: icon)
  }
  public static func fields(_ title: String, _ fields: [String]) -> Scope {
    Scope(title: title, filter: .fields(fields))
  }

  private enum CodingKeys: String, CodingKey { case title, category, fields, icon }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    title = try container.decode(String.self, forKey: .title)
    icon = try container.decodeIfPresent(String.self, forKey: .icon)
    if let category = try container.decodeIfPresent(String.self, forKey: .category) {
      filter = .category(category)
    } else if let fields = try container.decodeIfPresent([String].self, forKey: .fields) {
      filter = .fields(fields)
    } else {
      filter = .all
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(title, forKey: .title)
    try container.encodeIfPresent(icon, forKey: .icon)
    switch filter {
    case .all: break
    case .category(let value): try container.encode(value, forKey: .category)
    case .fields(let fields): try container.encode(fields, forKey: .fields)
    }
  }
}
