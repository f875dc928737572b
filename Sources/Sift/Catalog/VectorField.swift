/// The field whose value places each item in a space of meaning: a fixed-length array of
/// numbers (an embedding an app or a model made of the item's text), one length per catalog.
/// Items near a query vector — or near another item — are found by cosine similarity
/// (`SearchVector`), alone or fused with the text rules' order.
///
/// The field is kept with the item like any other (`CatalogSchema.storedFields`), as 32-bit
/// floats — the precision embeddings are made in — and written back as the numbers it holds.
public struct VectorField: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The record field that holds the vector.
  public var field: String
  /// How many numbers every vector holds; set by the first vector a catalog is given.
  public var dimensions: Int

  /// The most numbers a vector may hold: far past every embedding model in use (3,072).
  public static let maximumDimensions = 8_192

  public init(field: String, dimensions: Int) {
    self.field = field
    self.dimensions = dimensions
  }

  public var description: String { "\(field) (\(dimensions) dimensions)" }

  /// The vector `value` holds, checked against `dimensions` (nil: none, which an item may
  /// lack — it is then never found by meaning). A value of another length, a non-number, a
  /// number past a 32-bit float's range or a vector of zeros (which points nowhere) is refused
  /// with the reason.
  public func vector(in value: FieldValue?) -> Result<[Float]?, VectorProblem> {
    Self.vector(in: value, dimensions: dimensions)
  }

  /// `vector(in:)` of a catalog whose vectors hold `dimensions` numbers; nil `dimensions`
  /// takes any length (a catalog's first vector).
  public static func vector(
    in value: FieldValue?, dimensions: Int?
  ) -> Result<[Float]?, VectorProblem> {
    let read = floats(in: value)
    if case .success(let floats?) = read, let dimensions, floats.count != dimensions {
      return .failure(.wrongLength(floats.count, expected: dimensions))
    }
    return read
  }

  /// The numbers of a vector value of any length: `.vector`, or a JSON list of numbers as
  /// it came from a record or a client. Nil for no value (absent or `null`).
  public static func floats(in value: FieldValue?) -> Result<[Float]?, VectorProblem> {
    let floats: [Float]
    switch value {
    case .none, .null?: return .success(nil)
    case .vector(let values)?: floats = values
    case .list(let values)?:
      var read: [Float] = []
      read.reserveCapacity(values.count)
      for (index, element) in values.enumerated() {
        guard case .number(let number) = element else {
          return .failure(.notANumber(at: index, kind: element.kindName))
        }
        let float = Float(number)
        guard float.isFinite else { return .failure(.outOfRange(at: index, number)) }
        read.append(float)
      }
      floats = read
    case .texts(let texts)? where texts.isEmpty: floats = []
    case let other?: return .failure(.notAList(other.kindName))
    }
    guard !floats.isEmpty else { return .failure(.empty) }
    guard floats.count <= maximumDimensions else {
      return .failure(.tooLong(floats.count))
    }
    if let index = floats.firstIndex(where: { !$0.isFinite }) {
      return .failure(.outOfRange(at: index, Double(floats[index])))
    }
    guard floats.contains(where: { $0 != 0 }) else { return .failure(.zero) }
    return .success(floats)
  }

  /// `floats` scaled to length 1, so that a dot product is their cosine.
  package static func unit(_ floats: [Float]) -> [Float] {
    var sum: Double = 0
    for value in floats { sum += Double(value) * Double(value) }
    let scale = sum > 0 ? Float(1 / sum.squareRoot()) : 0
    return floats.map { $0 * scale }
  }
}

/// Why a value cannot be an item's vector (or a query's); the description says it in words an
/// import prefixes with `FILE:LINE: field "NAME" `.
public enum VectorProblem: Error, Hashable, Sendable, CustomStringConvertible {
  case notAList(String)
  case notANumber(at: Int, kind: String)
  case outOfRange(at: Int, Double)
  case empty
  case tooLong(Int)
  case zero
  case wrongLength(Int, expected: Int)

  public var description: String {
    switch self {
    case .notAList(let kind): "must be an array of numbers (a vector), not \(kind)"
    case .notANumber(let index, let kind):
      "must be an array of numbers (a vector); element \(index + 1) is \(kind)"
    case .outOfRange(let index, let number):
      "holds \(number) at element \(index + 1), outside a 32-bit float's range"
    case .empty: "is an empty array; a vector holds at least one number"
    case .tooLong(let count):
      "holds \(count) numbers; a vector holds at most \(VectorField.maximumDimensions)"
    case .zero: "is all zeros, which points in no direction (leave the field out instead)"
    case .wrongLength(let count, let expected):
      "holds \(count) numbers; this catalog's vectors hold \(expected)"
    }
  }
}

extension FieldValue {
  /// What a message calls a value of this kind ("a string", "an array").
  package var kindName: String {
    switch self {
    case .text: "a string"
    case .texts, .list, .vector: "an array"
    case .number: "a number"
    case .bool: "a boolean"
    case .null: "null"
    case .object: "an object"
    }
  }
}
