/// The stable identity of an item in a catalog.
///
/// Edits address items by id, never by position in some array: a position is only meaningful in
/// the list it was read from, and two items may share a title (FoodTracker's `index(of:)` bug).
public struct ItemID: RawRepresentable, Hashable, Comparable, Sendable, Codable,
  ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, CustomStringConvertible
{
  public var rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public init(integerLiteral value: Int) { self.rawValue = String(value) }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let number = try? container.decode(Int64.self) {
      rawValue = String(number)
    } else {
      rawValue = try container.decode(String.self)
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }

  public static func < (lhs: ItemID, rhs: ItemID) -> Bool { lhs.rawValue < rhs.rawValue }
}
