import Sift

/// Several strings in one BLOB, losslessly: a count, then each string's UTF-8 length and bytes,
/// numbers as LEB128 varints. A multi-valued text field (a city's alternate names) is stored
/// this way so that loading a catalog decodes bytes, not JSON.
enum TextListCodec {
  static func encode(_ strings: [String]) -> [UInt8] {
    var bytes: [UInt8] = []
    appendVarint(strings.count, to: &bytes)
    for string in strings {
      appendVarint(string.utf8.count, to: &bytes)
      bytes.append(contentsOf: string.utf8)
    }
    return bytes
  }

  /// The strings, or nil when the bytes are not a list this codec wrote.
  static func decode(_ bytes: UnsafeRawBufferPointer) -> [String]? {
    var offset = 0
    guard let count = readVarint(bytes, &offset), count <= bytes.count else { return nil }
    var strings: [String] = []
    strings.reserveCapacity(count)
    for _ in 0..<count {
      guard let length = readVarint(bytes, &offset), length <= bytes.count - offset else {
        return nil
      }
      // Written from Swift strings, so valid UTF-8; damaged bytes decode to U+FFFD, never trap.
      strings.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
      offset += length
    }
    return offset == bytes.count ? strings : nil
  }

  private static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
    var value = UInt64(value)
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  private static func readVarint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> Int? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < bytes.count, shift < 63 {
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return Int(exactly: value) }
      shift += 7
    }
    return nil
  }
}

/// A kept value that is not text, strings or a number (`true`, `null`, a list, an object) in
/// one BLOB: two bytes no list of strings starts with — a varint zero written long, which
/// `TextListCodec` never writes — and then the value's JSON. A column's SQL NULL stays "the item
/// has no such field", so a kept `null` is told apart from a missing field.
enum KeptJSONCodec {
  static let marker: [UInt8] = [0x80, 0x00]

  static func encode(_ value: FieldValue) -> [UInt8] {
    var bytes = marker
    value.json.write(to: &bytes)
    return bytes
  }

  /// The value, or nil when the bytes do not start with the marker (a list of strings, then)
  /// or their JSON does not read.
  static func decode(_ bytes: UnsafeRawBufferPointer) -> FieldValue? {
    guard bytes.count > marker.count, bytes[0] == marker[0], bytes[1] == marker[1] else {
      return nil
    }
    guard let json = try? JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[2...])) else {
      return nil
    }
    return FieldValue(json: json)
  }
}

/// An item's vector (`VectorField`) in one BLOB: three bytes no list of strings starts with —
/// the varint 1 written long, which `TextListCodec` never writes — then each number as a
/// 32-bit float, little-endian: 4 bytes a number, where its JSON took about ten.
enum VectorCodec {
  static let marker: [UInt8] = [0x81, 0x80, 0x00]

  static func encode(_ values: [Float]) -> [UInt8] {
    var bytes = marker
    bytes.reserveCapacity(marker.count + 4 * values.count)
    for value in values {
      withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }
    return bytes
  }

  /// The numbers, or nil when the bytes do not start with the marker or are cut short.
  static func decode(_ bytes: UnsafeRawBufferPointer) -> [Float]? {
    let start = marker.count
    guard bytes.count > start, bytes[0] == marker[0], bytes[1] == marker[1],
      bytes[2] == marker[2], (bytes.count - start) % 4 == 0
    else { return nil }
    return (0..<(bytes.count - start) / 4).map { index in
      Float(
        bitPattern: UInt32(
          littleEndian: bytes.loadUnaligned(
            fromByteOffset: start + 4 * index, as: UInt32.self)))
    }
  }
}
