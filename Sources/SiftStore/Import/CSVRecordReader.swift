import CSV
import Foundation

/// Reads CSV with a header row (RFC 4180) through CSV.swift. Before parsing, one pass over the
/// bytes finds where each record starts and any quote left open, so every error can name its
/// line — CSV.swift itself reads an unclosed quote to the end of the file without a word.
enum CSVRecordReader {
  /// - Parameter delimiter: what separates fields: a comma unless `--delimiter` says otherwise.
  static func read(
    _ data: Data, file: String, delimiter: UInt8 = UInt8(ascii: ","), progress: (Int) -> Void,
    _ body: ([String: RawValue], Int) throws(ImportError) -> Void
  ) throws(ImportError) {
    let startLines = try recordStartLines(data, file: file, delimiter: delimiter)
    guard let text = String(data: data, encoding: .utf8) else {
      throw ImportError(file: file, line: firstInvalidUTF8Line(data), reason: "invalid UTF-8")
    }
    let reader: CSVReader
    do {
      reader = try CSVReader(
        string: text, hasHeaderRow: true, delimiter: UnicodeScalar(delimiter))
    } catch {
      throw ImportError(file: file, line: 1, reason: "no header row")
    }
    guard let header = reader.headerRow, !header.allSatisfy(\.isEmpty) else {
      throw ImportError(file: file, line: 1, reason: "no header row")
    }
    var seen: Set<String> = []
    for name in header where !seen.insert(name).inserted {
      throw ImportError(
        file: file, line: 1, reason: "column \"\(name)\" appears twice in the header")
    }
    let separators = [",", ";", "\t", "|"].filter { Array($0.utf8) != [delimiter] }
    if header.count == 1, let separator = separators.first(where: { header[0].contains($0) }) {
      let shown = separator == "\t" ? "tabs" : "\"\(separator)\""
      let flag = separator == "\t" ? "--delimiter tab" : "--delimiter '\(separator)'"
      throw ImportError(
        file: file, line: 1,
        reason:
          "the header is one column, \"\(header[0].prefix(60))\": this file looks separated by \(shown); import it with \(flag)"
      )
    }
    var recordIndex = 1  // the header is record 0
    while let row = reader.next() {
      let line = recordIndex < startLines.count ? startLines[recordIndex] : startLines.last ?? 1
      recordIndex += 1
      if recordIndex % 1024 == 0 { progress(data.count * recordIndex / max(1, startLines.count)) }
      if row == [""] { continue }  // a blank line
      guard row.count == header.count else {
        throw ImportError(
          file: file, line: line,
          reason:
            "\(row.count) field\(row.count == 1 ? "" : "s"), but the header has \(header.count)")
      }
      var values: [String: RawValue] = [:]
      for (name, cell) in zip(header, row) { values[name] = .string(cell) }
      try body(values, line)
    }
    if let error = reader.error {
      throw ImportError(file: file, line: 0, reason: "unreadable CSV (\(error))")
    }
    progress(data.count)
  }

  /// The line on which each record starts, and a check that every quoted field is closed and
  /// followed by a delimiter or the end of its record.
  static func recordStartLines(
    _ data: Data, file: String, delimiter comma: UInt8 = UInt8(ascii: ",")
  ) throws(ImportError) -> [Int] {
    let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    var starts = [1]
    var line = 1
    var inQuotes = false
    var quoteLine = 0
    var atFieldStart = true
    var index = data.startIndex
    while index < data.endIndex {
      let byte = data[index]
      index += 1
      if inQuotes {
        if byte == quote {
          if index < data.endIndex, data[index] == quote {
            index += 1  // an escaped quote
          } else {
            inQuotes = false
            if index < data.endIndex, ![comma, cr, lf].contains(data[index]) {
              // Quoted across lines and then not closing: the quote that opened it is the
              // likely fault (left open, so a later field's opening quote closed it).
              guard quoteLine == line else {
                throw ImportError(
                  file: file, line: quoteLine,
                  reason:
                    "a quote opened here is not closed on its line; read as one field, it runs to line \(line), where a quote cannot end it"
                )
              }
              throw ImportError(
                file: file, line: line, reason: "a closing quote must end its field")
            }
          }
        } else if byte == lf || (byte == cr && (index == data.endIndex || data[index] != lf)) {
          line += 1
        }
        continue
      }
      switch byte {
      case quote where atFieldStart:
        inQuotes = true
        quoteLine = line
        atFieldStart = false
      case comma:
        atFieldStart = true
      case cr where index < data.endIndex && data[index] == lf:
        continue
      case cr, lf:
        line += 1
        atFieldStart = true
        if index < data.endIndex { starts.append(line) }
      default:
        atFieldStart = false
      }
    }
    if inQuotes {
      throw ImportError(
        file: file, line: quoteLine, reason: "unclosed quote (it runs to the end of the file)")
    }
    return starts
  }

  static func firstInvalidUTF8Line(_ data: Data) -> Int {
    var line = 1
    var start = data.startIndex
    while start < data.endIndex {
      let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
      if String(data: data[start..<end], encoding: .utf8) == nil { return line }
      line += 1
      start = end < data.endIndex ? end + 1 : end
    }
    return 0
  }
}
