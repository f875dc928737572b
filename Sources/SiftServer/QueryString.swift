#if Server
/// A URL's query string read as a person's browser writes it: `name=value` pairs joined by `&`,
/// `+` for a space, `%XX` for a byte. Names may repeat (`token=…&token=…`). Bytes that are not
/// UTF-8 are refused with the name of the parameter that holds them, never replaced.
struct QueryString: Sendable {
  private(set) var pairs: [(name: String, value: String)] = []

  /// - Throws: `ServerError.badRequest` naming the parameter whose name or value is not
  ///   UTF-8 once decoded, or holds a malformed `%` escape.
  init(_ query: String?) throws(ServerError) {
    guard let query, !query.isEmpty else { return }
    for part in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      let equals = part.firstIndex(of: UInt8(ascii: "="))
      let rawName = equals.map { part[..<$0] } ?? part[...]
      let rawValue = equals.map { part[part.index(after: $0)...] } ?? part[part.endIndex...]
      let name = try Self.decode(rawName, field: "a parameter name")
      let value = try Self.decode(rawValue, field: name)
      pairs.append((name, value))
    }
  }

  /// Pairs given one by one, as a JSON body names them (`SearchBody`).
  init(pairs: [(name: String, value: String)]) { self.pairs = pairs }

  /// The last value given for `name`.
  subscript(name: String) -> String? { pairs.last { $0.name == name }?.value }

  /// Every value given for `name`, in order.
  func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

  private static func decode(
    _ bytes: Substring.UTF8View.SubSequence, field: String
  ) throws(ServerError) -> String {
    var decoded: [UInt8] = []
    decoded.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "+"):
        decoded.append(UInt8(ascii: " "))
      case UInt8(ascii: "%"):
        let first = bytes.index(after: index)
        guard first < bytes.endIndex, bytes.index(after: first) < bytes.endIndex,
          let high = hexValue(bytes[first]), let low = hexValue(bytes[bytes.index(after: first)])
        else {
          throw .badRequest("\(field): a malformed % escape")
        }
        decoded.append(high << 4 | low)
        index = bytes.index(after: first)
      default:
        decoded.append(byte)
      }
      index = bytes.index(after: index)
    }
    guard let text = String(validating: decoded, as: UTF8.self) else {
      throw .badRequest("\(field): not valid UTF-8")
    }
    return text
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
#endif
