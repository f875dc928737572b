/// A token in the search field (UISearchToken): what the person sees — text and an optional icon,
/// a symbol name or an emoji — and what the program reads back, `identifier`
/// (UIKit's `representedObject`), written in the query language: `category:Chocolate`,
/// `year:>=2010`. A token is a filter ANDed with the typed text.
public struct SearchToken: Hashable, Sendable, Codable {
  public var text: String
  public var icon: String?
  public var identifier: String

  public init(text: String, icon: String? = nil, identifier: String) {
    self.text = text
    self.icon = icon
    self.identifier = identifier
  }

  /// UIKit's name for `identifier`.
  public var representedObject: String { identifier }
}
