/// Checks bytes for well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF),
/// with an ASCII fast path: Foundation's `String(data:encoding:)` takes seconds on a large file.
package enum UTF8Validation {
  package static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
    var iterator = bytes.makeIterator()
    while let lead = iterator.next() {
      if lead < 0x80 { continue }
      let count: Int
      var minimum: UInt32
      var scalar: UInt32
      switch lead {
      case 0xC2...0xDF: (count, minimum, scalar) = (1, 0x80, UInt32(lead & 0x1F))
      case 0xE0...0xEF: (count, minimum, scalar) = (2, 0x800, UInt32(lead & 0x0F))
      case 0xF0...0xF4: (count, minimum, scalar) = (3, 0x10000, UInt32(lead & 0x07))
      default: return false
      }
      for _ in 0..<count {
        guard let next = iterator.next(), next & 0xC0 == 0x80 else { return false }
        scalar = scalar << 6 | UInt32(next & 0x3F)
      }
      if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) {
        return false
      }
      minimum = 0
    }
    return true
  }
}
