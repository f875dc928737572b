import Foundation
import Sift

/// Reads CSV with a header row (RFC 4180), a batch of records at a time: the file is never
/// whole in memory. Each batch ends at a record's end (a line break outside quotes). One pass
/// over a batch's bytes finds where each record starts, on which line, and any quote left
/// open; then its records are split into fields and converted in parts, one per core, while
/// the caller has the batch before. Every error names its line.
struct CSVRecordReader {
  /// The bytes a batch holds, about: it ends at the last record's end within them. Half a
  /// JSON Lines batch, since CSV spells a record in about half the bytes: a batch holds as
  /// many records, and as much memory.
  static let batchBytes = 2 << 20

  /// A record's fields (in the header's order) and the line it starts on, made into what the
  /// caller wants or refused; run on several threads at once.
  typealias Convert<Output> = @Sendable ([String], Int) -> Result<Output, ImportError>

  /// The columns' names, from the header row.
  let header: [String]
  private var batches: BatchedFile
  private let name: String
  private let delimiter: UInt8
  private let batchSize: Int
  /// The lines read before the next batch.
  private var linesBefore: Int

  /// Reads the header row of `file` from where it stands (`start`: the bytes read before it,
  /// to detect the format); a UTF-8 byte order mark before it is skipped, as spreadsheets
  /// write one.
  ///
  /// - Parameter delimiter: what separates fields: a comma unless `--delimiter` says otherwise.
  init(
    _ file: FileHandle, start: [UInt8], name: String, delimiter: UInt8 = UInt8(ascii: ","),
    batchBytes: Int = batchBytes
  ) throws(ImportError) {
    batches = BatchedFile(file, name: name, start: start)
    batches.skip([0xEF, 0xBB, 0xBF])
    self.name = name
    self.delimiter = delimiter
    batchSize = batchBytes
    linesBefore = 0
    guard
      let headerLine = try batches.next(
        size: batchBytes, line: 1,
        end: { bytes, atEnd in
          Self.recordEnd(in: bytes, delimiter: delimiter, first: true)
            ?? (atEnd ? bytes.count : nil)
        })
    else {
      throw ImportError(file: name, line: 1, reason: "no header row")
    }
    let layout = headerLine.withUnsafeBufferPointer {
      Self.layout(of: $0, delimiter: delimiter, file: name, firstLine: 1)
    }
    if let problem = layout.problem { throw problem.error }
    header = try Self.headerRow(headerLine, file: name, delimiter: delimiter)
    linesBefore = layout.lineBreaks
  }

  /// Hands `body` each batch of records, made by `convert`, in file order, until the file
  /// ends or `body` says to stop. `progress` is told the bytes read so far. The records before
  /// a bad one are handed on first: the first problem in the file is the one thrown, whether
  /// the reading or `convert` finds it.
  ///
  /// With `reject`, a record that does not fit (a count of fields other than the header's, a
  /// problem `convert` finds) is handed to it and the records after it are read; a quote left
  /// open and invalid UTF-8 still stop the reading, since the records after them cannot be told
  /// apart for certain.
  mutating func read<Output: Sendable>(
    progress: (Int) -> Void, convert: @escaping Convert<Output>,
    reject: ((ImportError) throws -> Void)? = nil,
    _ body: ([Output]) throws -> Bool
  ) throws {
    let (name, delimiter, width) = (self.name, self.delimiter, header.count)
    let skips = reject != nil
    func parsing(_ batch: [UInt8]) -> Background<Parsed<Output>> {
      let lines = linesBefore
      return Background {
        Self.parse(
          batch, fields: width, linesBefore: lines, file: name, delimiter: delimiter,
          skips: skips, convert: convert)
      }
    }
    var next = try nextBatch().map(parsing)
    while let current = next {
      let parsed = current.take()
      linesBefore += parsed.lineBreaks
      next = try nextBatch().map(parsing)
      // In file order: the records before each passed-over one, then that one.
      var handed = 0
      for (before, rejected) in parsed.rejected {
        if before > handed, try !body(Array(parsed.records[handed..<before])) { return }
        handed = before
        try reject?(rejected)
      }
      if parsed.records.count > handed, try !body(Array(parsed.records[handed...])) { return }
      if let error = parsed.error { throw error }
      progress(batches.consumed)
    }
  }

  /// Whole records: up to the last record's end in a batch, or all of it at the end of the
  /// file; a record longer than a batch reads on.
  private mutating func nextBatch() throws(ImportError) -> [UInt8]? {
    let delimiter = self.delimiter
    return try batches.next(size: batchSize, line: linesBefore + 1) { bytes, atEnd in
      atEnd ? bytes.count : Self.recordEnd(in: bytes, delimiter: delimiter)
    }
  }

  /// A batch's records, up to the first bad one, that one's error, and the line breaks the
  /// batch holds.
  struct Parsed<Output: Sendable>: Sendable {
    var records: [Output] = []
    var error: ImportError?
    var lineBreaks = 0
    /// The records passed over (`skips`), in order, each after how many of `records`.
    var rejected: [(before: Int, error: ImportError)] = []
  }

  /// The header's column names, checked: some, none twice, and not one that looks like
  /// another separator's whole header.
  private static func headerRow(
    _ line: [UInt8], file: String, delimiter: UInt8
  ) throws(ImportError) -> [String] {
    guard UTF8Validation.isValid(line) else {
      throw ImportError(file: file, line: 1, reason: "invalid UTF-8")
    }
    guard let header = rows(in: line, delimiter: delimiter).first, !header.allSatisfy(\.isEmpty)
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

  /// The records of one batch of whole records, lines counted after `linesBefore`, split and
  /// converted in parts, one per core, at once. A quote left open is the error of the record
  /// it opens in; invalid UTF-8, of the record that holds it.
  private static func parse<Output: Sendable>(
    _ batch: [UInt8], fields width: Int, linesBefore: Int, file: String, delimiter: UInt8,
    skips: Bool, convert: Convert<Output>
  ) -> Parsed<Output> {
    batch.withUnsafeBufferPointer { buffer in
      let layout = layout(of: buffer, delimiter: delimiter, file: file, firstLine: linesBefore + 1)
      // Only the records before a quote problem are sound.
      let sound = layout.problem?.record ?? layout.starts.count
      let bytes = SharedReadBuffer(buffer: buffer)
      let ends = Array(layout.starts.dropFirst()) + [buffer.count]
      // The bytes of records `first..<end`, one after the other.
      @Sendable func text(_ records: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        guard let first = records.first else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(
          rebasing: bytes.buffer[layout.starts[first]..<ends[records.upperBound - 1]])
      }
      let parts = Parallel.ranges(
        count: sound, parts: Parallel.parts(for: buffer.count, minimumPerPart: 1 << 20))
      let read = Parallel.map(parts: parts.count) { part -> Parsed<Output> in
        var parsed = Parsed<Output>()
        var records = parts[part]
        if !UTF8Validation.isValid(text(records)) {
          // The first record that is not valid UTF-8 is the part's error.
          let bad = records.first { !UTF8Validation.isValid(text($0..<$0 + 1)) }!
          parsed.error = ImportError(
            file: file, line: layout.lines[bad] + firstInvalidUTF8Line(text(bad..<bad + 1)) - 1,
            reason: "invalid UTF-8")
          records = records.lowerBound..<bad
        }
        let rows = rows(in: text(records), delimiter: delimiter)
        parsed.records.reserveCapacity(rows.count)
        for (offset, row) in rows.enumerated() {
          let line = layout.lines[min(records.lowerBound + offset, layout.lines.count - 1)]
          if row == [""] { continue }  // a blank line
          let error: ImportError
          if row.count != width {
            error = ImportError(
              file: file, line: line,
              reason: "\(row.count) field\(row.count == 1 ? "" : "s"), but the header has \(width)")
          } else {
            switch convert(row, line) {
            case .success(let record):
              parsed.records.append(record)
              continue
            case .failure(let failure): error = failure
            }
          }
          guard skips else {
            parsed.error = error
            return parsed
          }
          parsed.rejected.append((parsed.records.count, error))
        }
        return parsed
      }
      var parsed = Parsed<Output>(lineBreaks: layout.lineBreaks)
      parsed.records.reserveCapacity(read.reduce(0) { $0 + $1.records.count })
      for part in read {
        let before = parsed.records.count
        parsed.rejected += part.rejected.map { (before + $0.before, $0.error) }
        parsed.records += part.records
        if let error = part.error {
          parsed.error = error
          return parsed
        }
      }
      parsed.error = layout.problem?.error
      return parsed
    }
  }

  /// The fields of each record in `bytes` — whole records of valid UTF-8 whose quotes
  /// `layout(of:)` checked — as RFC 4180 reads them: a quoted field unquoted and its
  /// doubled quotes made one, a blank line one empty field. CSV.swift read them until
  /// issue 54; this reads them in one pass over the bytes, a third of its time.
  static func rows(in bytes: [UInt8], delimiter: UInt8) -> [[String]] {
    bytes.withUnsafeBufferPointer { rows(in: $0, delimiter: delimiter) }
  }

  static func rows(in bytes: UnsafeBufferPointer<UInt8>, delimiter: UInt8) -> [[String]] {
    let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
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

  /// Where the last record that ends within `bytes` ends (past its line break), read from a
  /// record's start: quotes are followed as `layout(of:)` follows them. `first`: where the
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

  /// Where each record of a batch of whole records starts, and the first quote problem.
  struct Layout {
    /// Each record's first byte.
    var starts: [Int] = []
    /// The line each record starts on.
    var lines: [Int] = []
    /// The line breaks the bytes hold: a line feed, a carriage return and line feed, or a
    /// carriage return alone, in quotes or not.
    var lineBreaks = 0
    /// A quoted field not closed, or not followed by a delimiter or the end of its record:
    /// the record it is in (the records before it are sound), and the error.
    var problem: (record: Int, error: ImportError)?
  }

  /// One pass over `bytes`, whole records that start on line `firstLine` of the file: where
  /// each record starts and whether every quoted field is closed and followed by a delimiter
  /// or the end of its record.
  static func layout(
    of bytes: UnsafeBufferPointer<UInt8>, delimiter comma: UInt8, file: String, firstLine: Int
  ) -> Layout {
    let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    var layout = Layout()
    guard !bytes.isEmpty else { return layout }
    layout.starts = [0]
    layout.lines = [firstLine]
    var line = firstLine
    var inQuotes = false
    var quoteLine = 0
    var atFieldStart = true
    var index = 0
    let count = bytes.count
    func fail(_ error: ImportError) -> Layout {
      layout.problem = (layout.starts.count - 1, error)
      return layout
    }
    while index < count {
      let byte = bytes[index]
      index += 1
      if inQuotes {
        if byte == quote {
          if index < count, bytes[index] == quote {
            index += 1  // an escaped quote
          } else {
            inQuotes = false
            if index < count, bytes[index] != comma, bytes[index] != cr, bytes[index] != lf {
              // Quoted across lines and then not closing: the quote that opened it is the
              // likely fault (left open, so a later field's opening quote closed it).
              guard quoteLine == line else {
                return fail(
                  ImportError(
                    file: file, line: quoteLine,
                    reason:
                      "a quote opened here is not closed on its line; read as one field, it runs to line \(line), where a quote cannot end it"
                  ))
              }
              return fail(
                ImportError(file: file, line: line, reason: "a closing quote must end its field"))
            }
          }
        } else if byte == lf || (byte == cr && (index == count || bytes[index] != lf)) {
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
      case cr where index < count && bytes[index] == lf:
        continue
      case cr, lf:
        line += 1
        atFieldStart = true
        if index < count {
          layout.starts.append(index)
          layout.lines.append(line)
        }
      default:
        atFieldStart = false
      }
    }
    layout.lineBreaks = line - firstLine
    if inQuotes {
      return fail(
        ImportError(
          file: file, line: quoteLine, reason: "unclosed quote (it runs to the end of the file)"))
    }
    return layout
  }

  /// The line, counted from 1, that holds the first byte that is not valid UTF-8; 0 if none.
  static func firstInvalidUTF8Line(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var line = 1
    var start = 0
    while start < bytes.count {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      if !UTF8Validation.isValid(UnsafeBufferPointer(rebasing: bytes[start..<end])) { return line }
      line += 1
      start = end < bytes.count ? end + 1 : end
    }
    return 0
  }
}
