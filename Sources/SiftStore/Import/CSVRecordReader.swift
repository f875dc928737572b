import CSV
import Foundation
import Sift

/// Reads CSV with a header row (RFC 4180), a batch of records at a time: the file is never
/// whole in memory. Each batch ends at a record's end (a line break outside quotes), and before
/// it is parsed one pass over its bytes finds where each record starts and any quote left open,
/// so every error can name its line. The header is read by CSV.swift; the records by `rows`.
enum CSVRecordReader {
  /// The bytes a batch holds, about: it ends at the last record's end within them.
  static let batchBytes = 4 << 20

  /// Calls `body` with each record's values by column name and the line it starts on, as
  /// `file` is read from where it stands (`start`: the bytes read before it, to detect the
  /// format). `progress` is told the bytes read so far.
  ///
  /// - Parameter delimiter: what separates fields: a comma unless `--delimiter` says otherwise.
  static func read(
    _ file: FileHandle, start: [UInt8], name: String, delimiter: UInt8 = UInt8(ascii: ","),
    batchBytes: Int = batchBytes, progress: (Int) -> Void,
    _ body: ([String: RawValue], Int) throws -> Void
  ) throws {
    var batches = BatchedFile(file, name: name, start: start)
    var linesBefore = 0
    // Whole records: up to the last record's end in a batch, or all of it at the end of the
    // file (`first`: the header's line alone); a record longer than a batch reads on.
    func nextBatch(first: Bool) throws -> [UInt8]? {
      try batches.next(size: batchBytes, line: linesBefore + 1) { bytes, atEnd in
        if atEnd, !first { return bytes.count }
        return recordEnd(in: bytes, delimiter: delimiter, first: first)
          ?? (atEnd ? bytes.count : nil)
      }
    }
    guard let headerLine = try nextBatch(first: true) else {
      throw ImportError(file: name, line: 1, reason: "no header row")
    }
    let header = try headerRow(headerLine, file: name, delimiter: delimiter)
    linesBefore = lineBreaks(in: headerLine)
    // The next batch is parsed on another thread while `body` checks (and its caller writes)
    // this one's records.
    func parsing(_ batch: [UInt8]) -> Background<Parsed> {
      let lines = linesBefore
      linesBefore += lineBreaks(in: batch)
      return Background {
        parse(batch, names: header, linesBefore: lines, file: name, delimiter: delimiter)
      }
    }
    var next = try nextBatch(first: false).map(parsing)
    while let current = next {
      let parsed = current.take()
      next = try nextBatch(first: false).map(parsing)
      // The records before a bad one are handed on first: the first problem in the file is
      // the one reported, whether the parse or `body` finds it.
      for (values, line) in parsed.records { try body(values, line) }
      if let error = parsed.error { throw error }
      progress(batches.consumed)
    }
  }

  /// A batch's records, by column name with the line each starts on, up to the first bad one,
  /// and that one's error.
  struct Parsed: Sendable {
    var records: [([String: RawValue], Int)] = []
    var error: ImportError?
  }

  /// The header's column names, checked: some, none twice, and not one that looks like
  /// another separator's whole header.
  private static func headerRow(
    _ line: [UInt8], file: String, delimiter: UInt8
  ) throws(ImportError) -> [String] {
    _ = try recordStartLines(Data(line), file: file, delimiter: delimiter)
    guard let text = String(data: Data(line), encoding: .utf8) else {
      throw ImportError(file: file, line: 1, reason: "invalid UTF-8")
    }
    guard
      let reader = try? CSVReader(
        string: text, hasHeaderRow: true, delimiter: UnicodeScalar(delimiter)),
      let header = reader.headerRow, !header.allSatisfy(\.isEmpty)
    else {
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
    return header
  }

  /// The records of one batch of whole records; lines counted after `linesBefore`. A quote
  /// left open or invalid UTF-8 anywhere in the batch is its error before any record.
  private static func parse(
    _ batch: [UInt8], names: [String], linesBefore: Int, file: String, delimiter: UInt8
  ) -> Parsed {
    var parsed = Parsed()
    let startLines: [Int]
    do {
      startLines = try recordStartLines(
        Data(batch), file: file, delimiter: delimiter, firstLine: linesBefore + 1)
    } catch {
      parsed.error = error
      return parsed
    }
    guard UTF8Validation.isValid(batch) else {
      parsed.error = ImportError(
        file: file, line: linesBefore + firstInvalidUTF8Line(Data(batch)), reason: "invalid UTF-8")
      return parsed
    }
    for (recordIndex, row) in rows(in: batch, delimiter: delimiter).enumerated() {
      let line = recordIndex < startLines.count ? startLines[recordIndex] : startLines.last!
      if row == [""] { continue }  // a blank line
      guard row.count == names.count else {
        parsed.error = ImportError(
          file: file, line: line,
          reason:
            "\(row.count) field\(row.count == 1 ? "" : "s"), but the header has \(names.count)")
        return parsed
      }
      var values: [String: RawValue] = [:]
      values.reserveCapacity(names.count)
      for (name, cell) in zip(names, row) { values[name] = .string(cell) }
      parsed.records.append((values, line))
    }
    return parsed
  }

  /// The fields of each record in `bytes` — whole records of valid UTF-8 whose quotes
  /// `recordStartLines` checked — as RFC 4180 reads them: a quoted field unquoted and its
  /// doubled quotes made one, a blank line one empty field. CSV.swift read them until
  /// issue 54; this reads them in one pass over the bytes, a third of its time.
  static func rows(in bytes: [UInt8], delimiter: UInt8) -> [[String]] {
    let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    return bytes.withUnsafeBufferPointer { bytes in
      var rows: [[String]] = []
      guard !bytes.isEmpty else { return rows }
      var row: [String] = []
      var index = 0
      let count = bytes.count
      var quoted: [UInt8] = []
      while true {
        if index < count, bytes[index] == quote {
          // A quoted field: to its closing quote, a doubled quote read as one.
          quoted.removeAll(keepingCapacity: true)
          index += 1
          while index < count {
            let end = bytes[index...].firstIndex(of: quote) ?? count
            quoted.append(contentsOf: bytes[index..<end])
            if end + 1 < count, bytes[end + 1] == quote {
              quoted.append(quote)
              index = end + 2
            } else {
              index = end + 1
              break
            }
          }
          row.append(String(decoding: quoted, as: UTF8.self))
        } else {
          var end = index
          while end < count, bytes[end] != delimiter, bytes[end] != cr, bytes[end] != lf {
            end += 1
          }
          row.append(
            String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self))
          index = end
        }
        guard index < count else {
          rows.append(row)
          break
        }
        if bytes[index] == delimiter {
          index += 1
          continue
        }
        // A line break (CR LF, LF or CR alone) ends the record.
        index += bytes[index] == cr && index + 1 < count && bytes[index + 1] == lf ? 2 : 1
        rows.append(row)
        row = []
        if index >= count { break }
      }
      return rows
    }
  }

  /// Where the last record that ends within `bytes` ends (past its line break), read from a
  /// record's start: quotes are followed as `recordStartLines` follows them. `first`: where the
  /// first one ends instead (the header). Nil when no record ends there. A carriage return
  /// that is the last byte is not taken for an end: a line feed may follow it.
  static func recordEnd(in bytes: [UInt8], delimiter comma: UInt8, first: Bool = false) -> Int? {
    let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    var inQuotes = false
    var atFieldStart = true
    var end: Int?
    var index = 0
    let count = bytes.count - 1  // the last byte only ends a record as a line feed
    while index < count || (index == count && bytes[index] == lf) {
      let byte = bytes[index]
      index += 1
      if inQuotes {
        if byte == quote {
          if index < bytes.count, bytes[index] == quote { index += 1 } else { inQuotes = false }
        }
        continue
      }
      switch byte {
      case quote where atFieldStart:
        inQuotes = true
        atFieldStart = false
      case comma:
        atFieldStart = true
      case cr where bytes[index] == lf:
        continue
      case cr, lf:
        atFieldStart = true
        end = index
        if first { return end }
      default:
        atFieldStart = false
      }
    }
    return end
  }

  /// The line breaks in `bytes`: a line feed, a carriage return and line feed, or a carriage
  /// return alone, as `recordStartLines` counts them.
  static func lineBreaks(in bytes: [UInt8]) -> Int {
    var count = 0
    for (index, byte) in bytes.enumerated() {
      if byte == UInt8(ascii: "\n") {
        count += 1
      } else if byte == UInt8(ascii: "\r"),
        index + 1 == bytes.count || bytes[index + 1] != UInt8(ascii: "\n")
      {
        count += 1
      }
    }
    return count
  }

  /// The line on which each record starts, and a check that every quoted field is closed and
  /// followed by a delimiter or the end of its record.
  /// `firstLine`: the line the bytes start on in the file.
  static func recordStartLines(
    _ data: Data, file: String, delimiter comma: UInt8 = UInt8(ascii: ","), firstLine: Int = 1
  ) throws(ImportError) -> [Int] {
    let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    var starts = [firstLine]
    var line = firstLine
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
