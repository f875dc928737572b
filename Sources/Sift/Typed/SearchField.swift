import Foundation

/// One searchable property of an app's own type, declared with its key path: the name queries
/// use for it (`year:>=2010`), and how to read it.
///
/// ```swift
/// .text("title", \.title)
/// .number("price", \.price, label: "Intro price", decimals: 2)
/// .category("type", \.type)
/// ```
///
/// Text fields take `String`, `String?` or `[String]`; number fields any integer, floating-point
/// or `Decimal` property (optional too); category fields a `String` or a `String`-backed enum.
public struct SearchField<Element: Sendable>: Sendable {
  /// The field as a catalog schema states it: name, label, kind.
  public let definition: FieldDefinition
  /// The key path the field reads, so results, highlights and tokens can name it.
  let keyPath: any AnyKeyPath & Sendable
  let read: Reader
  /// The value as the dynamic door stores it, for display and explanations.
  let value: @Sendable (Element) -> FieldValue?

  /// How the engine reads the field from an element.
  enum Reader: Sendable {
    case texts(@Sendable (Element) -> [String])
    case number(@Sendable (Element) -> Double?)
    /// The values of a category: none, one, or several (a film's genres).
    case category(@Sendable (Element) -> [String])
  }

  init(
    _ definition: FieldDefinition, _ keyPath: any AnyKeyPath & Sendable, _ read: Reader,
    _ value: (@Sendable (Element) -> FieldValue?)? = nil
  ) {
    self.definition = definition
    self.keyPath = keyPath
    self.read = read
    self.value = value ?? Self.value(read)
  }

  /// A value read as the dynamic door would store it: one string, several, or a number.
  private static func value(_ read: Reader) -> @Sendable (Element) -> FieldValue? {
    switch read {
    case .texts(let read):
      return { element in
        let strings = read(element)
        return strings.count == 1 ? .text(strings[0]) : strings.isEmpty ? nil : .texts(strings)
      }
    case .number(let read): return { read($0).map(FieldValue.number) }
    case .category(let read):
      return { element in
        let values = read(element)
        return values.count == 1 ? .text(values[0]) : values.isEmpty ? nil : .texts(values)
      }
    }
  }

  // MARK: - Text

  /// A text field: searched by substring, highlighted where it matched. `names: true` when
  /// it holds the item's other names, ranked like the title (`FieldDefinition.namesItem`);
  /// otherwise it describes the item.
  public static func text(
    _ name: String, _ keyPath: any KeyPath<Element, String> & Sendable, label: String? = nil,
    searchable: Bool = true, names: Bool = false
  ) -> Self {
    Self(
      .text(name, label: label, searchable: searchable, names: names), keyPath,
      .texts { [$0[keyPath: keyPath]] })
  }

  /// A text field that may be missing.
  public static func text(
    _ name: String, _ keyPath: any KeyPath<Element, String?> & Sendable, label: String? = nil,
    searchable: Bool = true, names: Bool = false
  ) -> Self {
    Self(
      .text(name, label: label, searchable: searchable, names: names), keyPath,
      .texts { $0[keyPath: keyPath].map { [$0] } ?? [] })
  }

  /// A text field of several values (alternate names, tags): each is searched on its own.
  public static func text(
    _ name: String, _ keyPath: any KeyPath<Element, [String]> & Sendable, label: String? = nil,
    searchable: Bool = true, names: Bool = false
  ) -> Self {
    Self(
      .text(name, label: label, searchable: searchable, names: names), keyPath,
      .texts { $0[keyPath: keyPath] })
  }

  // MARK: - Numbers

  /// A number field: compared in filters (`year:>=2010`), equal to a plain number term.
  public static func number<Value: BinaryInteger & SendableMetatype>(
    _ name: String, _ keyPath: any KeyPath<Element, Value> & Sendable, label: String? = nil,
    searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(
      .number(name, label: label, searchable: searchable, decimals: decimals), keyPath,
      .number { Double($0[keyPath: keyPath]) })
  }

  /// An integer field that may be missing.
  public static func number<Value: BinaryInteger & SendableMetatype>(
    _ name: String, _ keyPath: any KeyPath<Element, Value?> & Sendable, label: String? = nil,
    searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(
      .number(name, label: label, searchable: searchable, decimals: decimals), keyPath,
      .number { $0[keyPath: keyPath].map { Double($0) } })
  }

  /// A floating-point number field.
  public static func number<Value: BinaryFloatingPoint & SendableMetatype>(
    _ name: String, _ keyPath: any KeyPath<Element, Value> & Sendable, label: String? = nil,
    searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(
      .number(name, label: label, searchable: searchable, decimals: decimals), keyPath,
      .number { Double($0[keyPath: keyPath]) })
  }

  /// A floating-point number field that may be missing.
  public static func number<Value: BinaryFloatingPoint & SendableMetatype>(
    _ name: String, _ keyPath: any KeyPath<Element, Value?> & Sendable, label: String? = nil,
    searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(
      .number(name, label: label, searchable: searchable, decimals: decimals), keyPath,
      .number { $0[keyPath: keyPath].map { Double($0) } })
  }

  /// A `Decimal` field (prices).
  public static func number(
    _ name: String, _ keyPath: any KeyPath<Element, Decimal> & Sendable, label: String? = nil,
    searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(
      .number(name, label: label, searchable: searchable, decimals: decimals), keyPath,
      .number { NSDecimalNumber(decimal: $0[keyPath: keyPath]).doubleValue })
  }

  /// A `Decimal` field that may be missing.
  public static func number(
    _ name: String, _ keyPath: any KeyPath<Element, Decimal?> & Sendable, label: String? = nil,
    searchable: Bool = true, decimals: Int? = nil
  ) -> Self {
    Self(
      .number(name, label: label, searchable: searchable, decimals: decimals), keyPath,
      .number { $0[keyPath: keyPath].map { NSDecimalNumber(decimal: $0).doubleValue } })
  }

  // MARK: - Category

  /// The catalog's grouping (CandySearch's category): what category scopes and tokens filter by.
  /// `searchable: true` lets plain terms find its values too, ranked after every other field.
  public static func category(
    _ name: String, _ keyPath: any KeyPath<Element, String> & Sendable, label: String? = nil,
    searchable: Bool = false
  ) -> Self {
    Self(
      .category(name, label: label, searchable: searchable), keyPath,
      .category { [$0[keyPath: keyPath]] })
  }

  /// A category that may be missing.
  public static func category(
    _ name: String, _ keyPath: any KeyPath<Element, String?> & Sendable, label: String? = nil,
    searchable: Bool = false
  ) -> Self {
    Self(
      .category(name, label: label, searchable: searchable), keyPath,
      .category { $0[keyPath: keyPath].map { [$0] } ?? [] })
  }

  /// An element in several categories at once (a film's genres): each value counts in the
  /// facets, and a scope or token of any of them keeps the element.
  public static func category(
    _ name: String, _ keyPath: any KeyPath<Element, [String]> & Sendable, label: String? = nil,
    searchable: Bool = false
  ) -> Self {
    Self(
      .category(name, label: label, searchable: searchable), keyPath,
      .category { $0[keyPath: keyPath] })
  }

  /// A category held as a `String`-backed enum (`Candy.Category.chocolate`).
  public static func category<Value: RawRepresentable & SendableMetatype>(
    _ name: String, _ keyPath: any KeyPath<Element, Value> & Sendable, label: String? = nil,
    searchable: Bool = false
  ) -> Self where Value.RawValue == String {
    Self(
      .category(name, label: label, searchable: searchable), keyPath,
      .category { [$0[keyPath: keyPath].rawValue] })
  }

  /// Several categories held as `String`-backed enums.
  public static func category<Value: RawRepresentable & SendableMetatype>(
    _ name: String, _ keyPath: any KeyPath<Element, [Value]> & Sendable, label: String? = nil,
    searchable: Bool = false
  ) -> Self where Value.RawValue == String {
    Self(
      .category(name, label: label, searchable: searchable), keyPath,
      .category { $0[keyPath: keyPath].map(\.rawValue) })
  }
}
