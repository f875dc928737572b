/// Checks bytes for well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF),
/// with an ASCII fast path: Foundation's `String(data:encoding:)` takes seconds on a large file.
package enum UTF8Validation {
  package static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
    if let valid = bytes.withContiguousStorageIfAvailable(isValid) { return valid }
    return Array(bytes).withUnsafeBufferPointer(isValid)
  }

  private static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    while i < bytes.count {
      if bytes[i] < 0x80 {
        i += 1
      } else if let (_, length) = scalar(in: bytes, at: i) {
        i += length
      } else {
        return false
      }
    }
    return true
  }

  /// The scalar that starts at `i` and its length in bytes, or nil where the bytes there are
  /// not well-formed UTF-8 (a stray continuation byte, a cut or overlong sequence, a surrogate).
  @inline(__always)
  package static func scalar(
    in bytes: UnsafeBufferPointer<UInt8>, at i: Int
  ) -> (value: UInt32, length: Int)? {
    let lead = bytes[i]
    if lead < 0x80 { return (UInt32(lead), 1) }
    let count: Int
    let minimum: UInt32
    var scalar: UInt32
    switch lead {
    case 0xC2...0xDF: (count, minimum, scalar) = (1, 0x80, UInt32(lead & 0x1F))
    case 0xE0...0xEF: (count, minimum, scalar) = (2, 0x800, UInt32(lead & 0x0F))
    case 0xF0...0xF4: (count, minimum, scalar) = (3, 0x10000, UInt32(lead & 0x07))
    default: return nil
    }
    guard i + count < bytes.count else { return nil }
    for offset in 1...count {
      let next = bytes[i + offset]
      guard next & 0xC0 == 0x80 else { return nil }
      scalar = scalar << 6 | UInt32(next & 0x3F)
    }
    guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
      return nil
    }
    return (scalar, count + 1)
  }
}
