/// A key press, decoded from the terminal's bytes.
public enum Key: Hashable, Sendable {
  case character(Character)
  case enter, escape, backspace, delete, tab, shiftTab
  case up, down, left, right, home, end, pageUp, pageDown
  case f1
  /// Ctrl and a letter (`.control("n")` is Ctrl-N).
  case control(Character)
}

/// Turns the bytes a terminal sends into keys: UTF-8 text, control characters and the escape
/// sequences of xterm-compatible terminals (tmux, VTE, iTerm2, the Linux console).
public struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  public init() {}

  /// True when a lone ESC is waiting: it is the Esc key unless more bytes follow at once.
  public var hasPendingEscape: Bool { pending == [0x1B] }

  /// Decodes what it can from `bytes` (with what was left from before). An incomplete
  /// sequence at the end waits for the next call.
  public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending.append(contentsOf: bytes)
    var keys: [Key] = []
    var index = 0
    while index < pending.count {
      guard let (key, length) = Self.key(in: pending[index...]) else { break }
      if let key { keys.append(key) }
      index += length
    }
    pending.removeFirst(index)
    return keys
  }

  /// Resolves a pending lone ESC as the Esc key (after a short wait brought nothing more).
  public mutating func flushEscape() -> [Key] {
    guard hasPendingEscape else { return [] }
    pending.removeAll()
    return [.escape]
  }

  /// The key at the start of `bytes` and its length, nil when more bytes are needed; a nil key
  /// with a length skips bytes that mean nothing (an unknown sequence).
  static func key(in bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
    guard let first = bytes.first else { return nil }
    switch first {
    case 0x1B:
      return escapeSequence(bytes)
    case 0x0D, 0x0A: return (.enter, 1)
    case 0x09: return (.tab, 1)
    case 0x7F, 0x08: return (.backspace, 1)
    case 0x01...0x1A:
      return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
    case 0x00, 0x1C...0x1F: return (nil, 1)
    case 0x20..<0x80:
      return (.character(Character(Unicode.Scalar(first))), 1)
    default:
      let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
      guard bytes.count >= length else { return nil }
      let text = String(decoding: bytes.prefix(length), as: UTF8.self)
      return (text.first.map(Key.character), length)
    }
  }

  private static func escapeSequence(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
    let start = bytes.startIndex
    guard bytes.count >= 2 else { return nil }
    let second = bytes[start + 1]
    if second == UInt8(ascii: "O") {  // SS3: F1–F4, and arrows in application mode
      guard bytes.count >= 3 else { return nil }
      let keys: [UInt8: Key] = [
        UInt8(ascii: "P"): .f1, UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down,
        UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left, UInt8(ascii: "H"): .home,
        UInt8(ascii: "F"): .end,
      ]
      return (keys[bytes[start + 2]], 3)
    }
    guard second == UInt8(ascii: "[") else {
      // ESC and another key (Alt-key): the Esc key, then the key itself on the next round.
      return (.escape, 1)
    }
    // CSI: parameters (digits and ;) then a final byte in 0x40…0x7E.
    var index = start + 2
    while index < bytes.endIndex, (0x30...0x3F).contains(bytes[index]) { index += 1 }
    guard index < bytes.endIndex else { return nil }
    let final = bytes[index]
    let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
    let length = index - start + 1
    switch final {
    case UInt8(ascii: "A"): return (.up, length)
    case UInt8(ascii: "B"): return (.down, length)
    case UInt8(ascii: "C"): return (.right, length)
    case UInt8(ascii: "D"): return (.left, length)
    case UInt8(ascii: "H"): return (.home, length)
    case UInt8(ascii: "F"): return (.end, length)
    case UInt8(ascii: "Z"): return (.shiftTab, length)
    case UInt8(ascii: "P") where parameters.isEmpty || parameters == "1": return (.f1, length)
    case UInt8(ascii: "~"):
      let keys: [String: Key] = [
        "1": .home, "7": .home, "4": .end, "8": .end, "3": .delete, "5": .pageUp, "6": .pageDown,
        "11": .f1,
      ]
      return (keys[String(parameters.prefix { $0 != ";" })], length)
    default:
      return (nil, length)
    }
  }
}
