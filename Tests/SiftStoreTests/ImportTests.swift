import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

@Suite("Import", .tags(.unit))
struct ImportTests {
  static let citySpec = ImportSpec(
    titleField: "name", textFields: ["alternates"], numberFields: ["population"],
    categoryField: "country", idField: "id")

  static var citySample: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/cities-sample.jsonl")
  }

  @Test("a --text field that holds each item's title among its values is found to name it")
  func otherNamesFound() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    // The cities: alternates hold each city's own name; found, and ranked like the title.
    #expect(
      CatalogImporter.otherNameFields(in: Self.citySample, spec: Self.citySpec) == ["alternates"])
    // Genres never hold a film's title; tags that hold it in a few records are not enough.
    let movies = folder.file("movies.jsonl")
    let lines = (0..<20).map { index -> String in
      let tag = index < 5 ? "Film \(index)" : "cult"
      return
        "{\"title\": \"Film \(index)\", \"genres\": [\"Drama\", \"War\"], \"tags\": [\"\(tag)\"]}"
    }
    try lines.joined(separator: "\n").write(to: movies, atomically: true, encoding: .utf8)
    let spec = ImportSpec(titleField: "title", textFields: ["genres", "tags"])
    #expect(CatalogImporter.otherNameFields(in: movies, spec: spec).isEmpty)
    // An import keeps what it found, and a catalog read back ranks by it.
    var cities = Self.citySpec
    cities.otherNameFields = CatalogImporter.otherNameFields(in: Self.citySample, spec: cities)
    let url = folder.file("cities.sqlite")
    _ = try CatalogImporter.run(file: Self.citySample, into: url, spec: cities)
    let store = try CatalogStore.open(at: url)
    defer { try? store.close() }
    #expect(try store.loadSchema().field(named: "alternates")?.namesItem == true)
    #expect(try store.loadSchema().field(named: "name")?.namesItem == false)
  }

  @Test("an import's category is searched, after every other field, unless it says not to")
  func categorySearchedAsText() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let pets = folder.file("pets.jsonl")
    let lines = [
      #"{"id": 1, "name": "Truffle", "species": "Goat", "breed": "Miniature"}"#,
      #"{"id": 2, "name": "Billy", "species": "Dog", "breed": "Goatherd Mix"}"#,
      #"{"id": 3, "name": "Goat", "species": "Dog", "breed": "Bernese"}"#,
      #"{"id": 4, "name": "Rex", "species": "Dog", "breed": "Boxer"}"#,
    ]
    try lines.joined(separator: "\n").write(to: pets, atomically: true, encoding: .utf8)
    let url = folder.file("pets.sqlite")
    var spec = ImportSpec(
      titleField: "name", textFields: ["breed"], categoryField: "species", idField: "id")
    func goats() throws -> [String] {
      let store = try CatalogStore.open(at: url)
      defer { try? store.close() }
      var collection = try store.loadDocument().makeCollection()
      collection.filter(by: SearchCriteria(text: "goat"))
      return collection.rows.map(\.rawValue)
    }
    // The name, then the breed that describes the pet, then the species: catalog order and
    // popularity would say otherwise.
    _ = try CatalogImporter.run(file: pets, into: url, spec: spec)
    #expect(try goats() == ["3", "2", "1"])
    // Turned off by a later import, kept by one that does not say, turned on again.
    spec.searchesCategory = false
    _ = try CatalogImporter.run(file: pets, into: url, spec: spec)
    #expect(try goats() == ["3", "2"])
    spec.searchesCategory = nil
    _ = try CatalogImporter.run(file: pets, into: url, spec: spec)
    #expect(try goats() == ["3", "2"])
    spec.searchesCategory = true
    _ = try CatalogImporter.run(file: pets, into: url, spec: spec)
    #expect(try goats() == ["3", "2", "1"])
  }

  @Test("real cities: JSON Lines with arrays, numbers and many categories")
  func cities() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("cities.sqlite")
    var reports: [ImportProgress] = []
    let summary = try CatalogImporter.run(
      file: Self.citySample, into: url, spec: Self.citySpec, progress: { reports.append($0) })
    #expect(summary == .init(added: 2955, updated: 0, kept: ["latitude", "longitude", "timezone"]))
    // Reading and writing, then the index, never going back; done at the end with every item.
    let phases: [ImportProgress.Phase] = [.writing, .indexing]
    #expect(reports.map(\.phase).removingRepeats() == phases)
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
    #expect(reports.last == ImportProgress(phase: .indexing, fraction: 1, items: 2955))
    let store = try CatalogStore.open(at: url)
    let document = try store.loadDocument()
    #expect(document.items.count == 2955)
    #expect(document.schema.scopes.isEmpty, "too many countries for a scope bar")
    #expect(document.schema.categories.contains("VN"))
    let seoul = try #require(try store.item(id: "1835848"))
    #expect(seoul["name"] == .text("Seoul"))
    #expect(seoul["alternates"]?.strings.contains("서울") == true)
    // The fields no flag named are kept, typed as they came, and not searched.
    #expect(seoul["timezone"] == .text("Asia/Seoul"))
    #expect(seoul["latitude"] == .number(37.566))
    #expect(
      document.schema.storedFields == [
        .number("latitude", searchable: false), .number("longitude", searchable: false),
        .text("timezone", searchable: false),
      ])
    #expect(document.schema.idField == "id")
    var search = SearchController(collection: try document.makeCollection())
    search.send(.focus)
    search.send(.setText("서울"))
    #expect(search.rows.contains("1835848"))
    search.send(.setText("đà nẵng"))
    #expect(search.rows == ["1583992"])

    // The same file again updates every item in place.
    let again = try CatalogImporter.run(file: Self.citySample, into: url, spec: Self.citySpec)
    #expect(again == .init(added: 0, updated: 2955, kept: ["latitude", "longitude", "timezone"]))
    #expect(try CatalogStore.open(at: url).loadDocument() == document)
  }

  @Test("CSV: quoted commas and line breaks, numbers from text, a scope bar from few categories")
  func csv() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = try folder.write(
      "meals.csv",
      "name,rating,course,grams\r\nCaprese Salad,4,Starter,250\r\n\"Chicken, Potatoes\",5,Main,400\r\n\r\n\"Pasta\nwith \"\"Meatballs\"\"\",,Main,350\r\n"
    )
    let url = folder.file("meals.sqlite")
    var reports: [ImportProgress] = []
    let summary = try CatalogImporter.run(
      file: file, into: url,
      spec: ImportSpec(titleField: "name", numberFields: ["rating"], categoryField: "course"),
      progress: { reports.append($0) })
    #expect(summary.added == 3)
    // A column no flag names that holds only numbers so far is scanned for to the end, then
    // the records are written.
    #expect(reports.map(\.phase).removingRepeats() == [.scanning, .writing, .indexing])
    #expect(reports.last { $0.phase == .scanning }?.items == 3)
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
    let document = try CatalogStore.open(at: url).loadDocument()
    #expect(document.items.map(\.id) == ["1", "2", "3"])
    #expect(document.items[2]["name"] == .text("Pasta\nwith \"Meatballs\""))
    #expect(document.items[2]["rating"] == nil)
    #expect(document.items[1]["rating"] == .number(5))
    #expect(document.items[0]["grams"] == .number(250))
    #expect(document.schema.scopeTitles == ["All", "Starter", "Main"])

    // With text in every column no flag names, there are no numbers to look for: one reading.
    let notes = try folder.write("notes.csv", "name,note\nSoup,hot\nSalad,7\n")
    reports = []
    _ = try CatalogImporter.run(
      file: notes, into: folder.file("notes.sqlite"), spec: ImportSpec(titleField: "name"),
      progress: { reports.append($0) })
    #expect(reports.map(\.phase).removingRepeats() == [.writing, .indexing])
    let salad = try CatalogStore.open(at: folder.file("notes.sqlite")).loadDocument().items[1]
    #expect(salad["note"] == .text("7"))
  }

  @Test(
    "CSV records read back as written: quoted fields, doubled quotes, delimiters and line breaks inside, stray quotes, every kind of line end",
    arguments: [(51, ","), (52, ";"), (53, "\t")] as [(UInt64, String)])
  func csvRowsRoundTrip(seed: UInt64, delimiter: String) throws {
    print("CSV rows seed \(seed)")
    var random = SplitMix64(seed: seed)
    let pieces = [
      "a", "Đà Nẵng", "서울", "x y", "\"", ",", ";", "\t", "\n", "\r", "\r\n", "", "7", "q\"q",
    ]
    let breaks = ["\n", "\r\n", "\r"]
    let separator = Unicode.Scalar(delimiter)!
    for _ in 0..<50 {
      var rows: [[String]] = []
      var text = ""
      let count = Int.random(in: 1...30, using: &random)
      for index in 0..<count {
        let row = (0..<Int.random(in: 1...4, using: &random)).map { _ in
          (0..<Int.random(in: 0...3, using: &random)).map { _ in
            pieces.randomElement(using: &random)!
          }.joined()
        }
        rows.append(row)
        var line = row.map { field in
          // Quoted when it must be (or at random); a quote inside an unquoted field is a
          // character like any other, as long as it does not start the field.
          let mustQuote =
            field.hasPrefix("\"")
            || field.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == separator }
          guard mustQuote || Int.random(in: 0..<4, using: &random) == 0 else { return field }
          return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: delimiter)
        // The last record may end the file without a line break, unless its line is empty.
        // After a CR, an empty line's LF would read as one CR LF with it: it gets a CR LF.
        if index < count - 1 || line.isEmpty || Bool.random(using: &random) {
          line +=
            line.isEmpty && text.hasSuffix("\r") ? "\r\n" : breaks.randomElement(using: &random)!
        }
        text += line
      }
      let read = CSVRecordReader.rows(in: Array(text.utf8), delimiter: Array(delimiter.utf8)[0])
      let differs = rows.indices.first { $0 < read.count && read[$0] != rows[$0] }.map {
        "record \($0): \(read[$0]) ≠ \(rows[$0])"
      }
      #expect(
        read == rows,
        "\(differs ?? "\(read.count) records, not \(rows.count)") in \(text.debugDescription)")
    }
  }

  @Test(
    "CSV read a batch at a time gives the records and lines of one read front to back, batches ending anywhere",
    arguments: [41, 42, 43] as [UInt64])
  func csvInBatches(seed: UInt64) throws {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    // Quoted fields with commas, quotes and line breaks of every kind, blank lines, CRLF.
    var text = "id,name,notes\r\n"
    for id in 1...300 {
      switch random.next() % 6 {
      case 0: text += "\(id),\"Name, \(id)\",\"two\nlines\"\n"
      case 1: text += "\(id),N\(id),\"say \"\"hi\"\"\r\nthen\rbye\"\r\n"
      case 2: text += "\n"
      case 3: text += "\(id),N\(id),\r\n"
      default: text += "\(id),N\(id),plain \(random.next() % 1000)\n"
      }
    }
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = try folder.write("batches.csv", text)
    func records(batchBytes: Int) throws -> [String] {
      let handle = try FileHandle(forReadingFrom: file)
      defer { try? handle.close() }
      var read: [String] = []
      var reader = try CSVRecordReader(
        handle, start: [], name: "batches.csv", batchBytes: batchBytes)
      #expect(reader.header == ["id", "name", "notes"])
      try reader.read(
        progress: { _ in },
        convert: { fields, line in .success("\(line):\(fields[0]):\(fields[2])") }
      ) { records in
        read += records
        return true
      }
      return read
    }
    let whole = try records(batchBytes: 1 << 20)
    #expect(whole.count > 200)
    #expect(whole.first?.hasPrefix("2:") == true)
    for batchBytes in [1, 7, 64, 100 + Int(random.next() % 400)] {
      #expect(try records(batchBytes: batchBytes) == whole, "batches of \(batchBytes) bytes")
    }
    // A bad record far into the file is named by its line, whatever batch holds it.
    let bad = try folder.write("late.csv", text + "999,\"open\n")
    let bytes = Array(text.utf8)
    let lines = bytes.indices.filter { index in
      bytes[index] == 0x0A
        || (bytes[index] == 0x0D && bytes.indices.contains(index + 1)
          && bytes[index + 1] != 0x0A)
    }.count
    #expect {
      _ = try CatalogImporter.readRecords(
        file: bad, spec: ImportSpec(titleField: "name", idField: "id"))
    } throws: { error in
      "\(error)".contains("late.csv:\(lines + 1): unclosed quote")
    }
  }

  @Test(
    "a bad line fails the whole import with FILE:LINE: reason and changes nothing",
    arguments: [
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\"}\n{\"id\":2,\"name\":\"B\"\n",
        "bad.jsonl:2: malformed JSON"
      ),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\"}\n{\"id\":2,\"name\":\"B\",}\n",
        "bad.jsonl:2: malformed JSON (at byte 19: expected a member's name)"
      ),
      (
        "bad.jsonl",
        "{\"id\":1,\"name\":\"A\"}\n\n{\"id\":3,\"name\":\"C\",\"population\":\"many\"}\n",
        "bad.jsonl:3: field \"population\" must be a number, not \"many\""
      ),
      (
        "bad.jsonl", "{\"id\":1,\"name\":7}\n",
        "bad.jsonl:1: title field \"name\" must be a string, not a number"
      ),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\",\"alternates\":[\"x\",2]}\n",
        "bad.jsonl:1: field \"alternates\" must be a string or an array of strings; it holds a number"
      ),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\"}\n{\"id\":1,\"name\":\"B\"}\n",
        "bad.jsonl:2: id \"1\" already appears on line 1"
      ),
      ("bad.jsonl", "{\"name\":\"A\"}\n", "bad.jsonl:1: missing id field \"id\""),
      ("bad.jsonl", "[1]\n", "bad.jsonl:1: expected a JSON object, found an array"),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\",\"country\":true}\n",
        "bad.jsonl:1: category field \"country\" must be a string or an array of strings, not a boolean"
      ),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\",\"country\":[\"FR\",1]}\n",
        "bad.jsonl:1: category field \"country\" must be a string or an array of strings; it holds a number"
      ),
      (
        "bad.csv", "id,name\n1,A\n2,\"B\n",
        "bad.csv:3: unclosed quote (it runs to the end of the file)"
      ),
      ("bad.csv", "id,name\n1,A\n2,B,C\n", "bad.csv:3: 3 fields, but the header has 2"),
      (
        "bad.csv", "id,name,population\n1,A,\n2,B,lots\n",
        "bad.csv:3: field \"population\" must be a number, not \"lots\""
      ),
      ("bad.csv", "id,name\n1,\"A\"x\n", "bad.csv:2: a closing quote must end its field"),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\"}\n{\"id\":2,\"name\":\"  \"}\n",
        "bad.jsonl:2: title field \"name\" is empty"
      ),
      ("bad.csv", "id,name\n1,A\n2,\n", "bad.csv:3: title field \"name\" is empty"),
      (
        // A quote left open on line 3: the next quoted field, on line 5, "closes" it.
        "bad.csv", "id,name\n1,A\n2,\"B\n3,C\n4,\"D\"\n",
        "bad.csv:3: a quote opened here is not closed on its line; read as one field, it runs to line 5"
      ),
      (
        "bad.csv", "id,name,name\n1,A,B\n", "bad.csv:1: column \"name\" appears twice in the header"
      ),
      (
        "bad.csv", "id;name\n1;A\n",
        "bad.csv:1: the header is one column, \"id;name\": this file looks separated by \";\"; import it with --delimiter ';'"
      ),
      (
        "bad.csv", "id\tname\n1\tA\n",
        "bad.csv:1: the header is one column, \"id\tname\": this file looks separated by tabs; import it with --delimiter tab"
      ),
      (
        "bad.jsonl", "{\"id\":1,\"name\":\"A\"}\n{\"id\":2,\"name\":\"B\\u0000C\"}\n",
        "bad.jsonl:2: field \"name\" contains a NUL character (U+0000)"
      ),
      (
        "bad.csv", "id,name,alternates\n1,A,\"x\u{0}y\"\n",
        "bad.csv:2: field \"alternates\" contains a NUL character (U+0000)"
      ),
    ])
  func failures(_ name: String, _ content: String, _ expected: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("cities.sqlite")
    _ = try CatalogImporter.run(file: Self.citySample, into: url, spec: Self.citySpec)
    let before = try CatalogStore.open(at: url).loadDocument()
    let file = try folder.write(name, content)
    #expect {
      _ = try CatalogImporter.run(file: file, into: url, spec: Self.citySpec)
    } throws: { error in
      "\(error)".contains(expected)
    }
    #expect(try CatalogStore.open(at: url).loadDocument() == before)
    // Into a new catalog: none is left behind.
    let fresh = folder.file("fresh.sqlite")
    #expect {
      _ = try CatalogImporter.run(file: file, into: fresh, spec: Self.citySpec)
    } throws: { error in
      "\(error)".contains(expected)
    }
    #expect(!FileManager.default.fileExists(atPath: fresh.path))
    #expect(!FileManager.default.fileExists(atPath: IndexFile.url(forCatalogAt: fresh).path))
  }

  @Test(
    "a CSV column no flag names is numbers when every non-empty cell is one, however late a text cell comes",
    arguments: [7, 8, 9] as [UInt64])
  func csvNumberColumns(seed: UInt64) throws {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let columns = ["id", "name", "zip", "code", "note", "gap"]
    let count = 300
    // `code` holds numbers until a text cell at a random row (or none); `gap` only empty
    // cells and numbers; `note` text from the start.
    let textAt = Int.random(in: 0...count + count / 2, using: &random)
    var rows: [[String]] = []
    for row in 0..<count {
      let number = { String(Int.random(in: -999...99_999, using: &random)) }
      let empty = Int.random(in: 0..<5, using: &random) == 0
      rows.append([
        String(row + 1), "N\(row)", empty ? "" : number(), row == textAt ? "A\(row)" : number(),
        "note \(row)", empty ? number() : "",
      ])
    }
    let text = ([columns] + rows).map { $0.joined(separator: ",") + "\n" }.joined()
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = try folder.write("numbers.csv", text)
    // The reference: a column is numbers when each of its non-empty cells is one.
    let numeric = columns.indices.map { column in
      rows.allSatisfy { $0[column].isEmpty || Double($0[column]) != nil }
    }
    for batchBytes in [64, 1000, 1 << 20] {
      var records: [ImportRecord] = []
      try ImportFileReader.read(
        file: file, spec: ImportSpec(titleField: "name", idField: "id"),
        delimiter: UInt8(ascii: ","), csvBatchBytes: batchBytes, progress: { _, _, _ in }
      ) { records += $0 }
      #expect(records.map(\.line) == Array(2...count + 1), "batches of \(batchBytes) bytes")
      for (record, row) in zip(records, rows) {
        for (column, name) in columns.enumerated().dropFirst(2) {
          let expected: FieldValue? =
            row[column].isEmpty
            ? nil : numeric[column] ? .number(Double(row[column])!) : .text(row[column])
          #expect(
            record.fields[name] == expected,
            "line \(record.line), \(name), batches of \(batchBytes) bytes")
        }
      }
    }
    #expect(numeric == [true, false, true, textAt >= count, false, true])
  }

  @Test(
    "a byte order mark before the first line is skipped, as JSON readers do and as spreadsheets write CSV",
    arguments: [
      ("bom.jsonl", "{\"id\":1,\"name\":\"A\"}\n{\"id\":2,\"name\":\"B\"}\n", [1, 2]),
      ("bom.csv", "id,name\r\n1,A\r\n2,B\r\n", [2, 3]),
    ])
  func byteOrderMark(name: String, text: String, lines: [Int]) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = folder.file(name)
    try Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)).write(to: file)
    let records = try CatalogImporter.readRecords(file: file, spec: Self.citySpec)
    #expect(records.map(\.id) == ["1", "2"])
    #expect(records.map(\.line) == lines)
    #expect(records.map { $0.fields["name"] } == [.text("A"), .text("B")])
    let data = try Data(contentsOf: file)
    #expect(
      CatalogImporter.Format.detect(path: "records", data: data)
        == (name.hasSuffix(".csv") ? .csv : .jsonLines))
  }

  @Test("invalid UTF-8 names its line")
  func invalidUTF8() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = folder.file("bad.jsonl")
    try Data(
      "{\"id\":1,\"name\":\"A\"}\n{\"id\":2,\"name\":\"B\u{FF}\"}\n".utf8.map {
        $0 == 0xC3 ? 0xFF : $0
      }
    )
    .write(to: file)
    #expect {
      _ = try CatalogImporter.readRecords(file: file, spec: Self.citySpec)
    } throws: { error in
      (error as? ImportError)?.line == 2 && (error as? ImportError)?.reason == "invalid UTF-8"
    }
  }

  @Test(
    "a file read in parts on every core, a batch at a time, gives the records and the first bad line of one read front to back",
    arguments: [
      (nil, nil, nil),
      (45_000, 50_000, "45000: id \"3\" already appears on line 3"),
      (nil, 50_000, "50000: malformed JSON"),
      (59_999, 20_000, "20000: malformed JSON"),
    ] as [(Int?, Int?, String?)])
  func readInParts(duplicateAt: Int?, badAt: Int?, expected: String?) throws {
    // 60,000 lines of about 170 bytes: more than one batch, each in parts.
    let padding = String(repeating: "x", count: 120)
    var text = ""
    for line in 1...60_000 {
      if line == duplicateAt {
        text += "{\"id\":3,\"name\":\"again\"}\n"
      } else if line == badAt {
        text += "{\"id\":\(line),\"name\":\"Bad\",}\n"
      } else if line % 1000 == 0 {
        text += "\n"  // a blank line is skipped, and still counted
      } else {
        text += "{\"id\":\(line),\"name\":\"City \(line)\",\"notes\":\"\(padding)\"}\n"
      }
    }
    #expect(text.utf8.count > JSONLinesReader.batchBytes)
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = try folder.write("cities.jsonl", text)
    guard let expected else {
      let records = try CatalogImporter.readRecords(file: file, spec: Self.citySpec)
      let lines = (1...60_000).filter { $0 % 1000 != 0 }
      #expect(records.map(\.line) == lines)
      #expect(records.map(\.id) == lines.map { ItemID(String($0)) })
      return
    }
    #expect {
      _ = try CatalogImporter.readRecords(file: file, spec: Self.citySpec)
    } throws: { error in
      "\(error)".contains("/cities.jsonl:\(expected)")
    }
    // Imported, the batches before the bad line are written, then undone with the catalog.
    let catalog = folder.file("cities.sqlite")
    #expect {
      _ = try CatalogImporter.run(file: file, into: catalog, spec: Self.citySpec)
    } throws: { error in
      "\(error)".contains("/cities.jsonl:\(expected)")
    }
    #expect(!FileManager.default.fileExists(atPath: catalog.path))
  }

  @Test(
    "CSV read in parts on every core, a batch at a time, gives the first problem in the file whatever kind and part",
    arguments: [
      ([:], nil),
      ([45_000: .duplicate], "45000: id \"3\" already appears on line 3"),
      ([30_000: .invalidUTF8, 40_000: .fieldCount], "30000: invalid UTF-8"),
      ([20_000: .fieldCount, 59_999: .invalidUTF8], "20000: 3 fields, but the header has 4"),
      ([2_000: .emptyTitle, 3_000: .badQuote], "2000: title field \"name\" is empty"),
      ([2_000: .badQuote, 3_000: .emptyTitle], "2000: a closing quote must end its field"),
      (
        [59_000: .openQuote],
        "59000: a quote opened here is not closed on its line; read as one field, it runs to line 59001"
      ),
      ([60_000: .openQuote], "60000: unclosed quote (it runs to the end of the file)"),
    ] as [([Int: CSVFault], String?)])
  func csvInParts(faults: [Int: CSVFault], expected: String?) throws {
    // 60,000 lines of about 100 bytes: more than one batch, each in two parts.
    let padding = String(repeating: "x", count: 80)
    var text = "id,name,notes,code\n"
    for line in 2...60_000 {
      switch faults[line] {
      case .duplicate: text += "3,again,,\n"
      case .invalidUTF8: text += "\(line),Caf\u{E9},\(padding),\n"
      case .fieldCount: text += "\(line),N,\(padding)\n"
      case .emptyTitle: text += "\(line),,\(padding),\n"
      case .badQuote: text += "\(line),\"N\"x,\(padding),\n"
      case .openQuote: text += "\(line),\"N,\(padding),\n"
      case nil:
        text += line % 1000 == 0 ? "\n" : "\(line),City \(line),\"\(padding), \(line)\",\(line)\n"
      }
    }
    var bytes = Array(text.utf8)
    if let line = faults.first(where: { $0.value == .invalidUTF8 })?.key {
      // "é" as Latin-1: one byte that is not UTF-8.
      let at = bytes.firstRange(of: Array("\(line),Caf".utf8))!.upperBound
      bytes.replaceSubrange(at..<at + 2, with: [0xE9])
    }
    #expect(bytes.count > CSVRecordReader.batchBytes)
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let file = folder.file("cities.csv")
    try Data(bytes).write(to: file)
    let spec = ImportSpec(titleField: "name", idField: "id")
    guard let expected else {
      let records = try CatalogImporter.readRecords(file: file, spec: spec)
      let lines = (2...60_000).filter { $0 % 1000 != 0 }
      #expect(records.map(\.line) == lines)
      #expect(records.map(\.id) == lines.map { ItemID(String($0)) })
      #expect(records.last?.fields["code"] == .number(59_999), "a column of numbers")
      return
    }
    #expect {
      _ = try CatalogImporter.readRecords(file: file, spec: spec)
    } throws: { error in
      "\(error)".contains("/cities.csv:\(expected)")
    }
  }

  enum CSVFault { case duplicate, invalidUTF8, fieldCount, emptyTitle, badQuote, openQuote }

  @Test(
    "what an import's progress bar says after the bar",
    arguments: [
      (
        ImportProgress(phase: .reading, fraction: 0.02, items: 4_096), 0.4, 0.4,
        "2% · 4,096 items read"
      ),
      (
        ImportProgress(phase: .reading, fraction: 0.1, items: 52_000), 1.0, 1.0,
        "10% · 52,000 items read · 52,000 a second · about 9 s left"
      ),
      (
        ImportProgress(phase: .scanning, fraction: 0.2, items: 40_000), 2.0, 2.0,
        "20% · 40,000 items scanned for numbers · 20,000 a second · about 8 s left"
      ),
      (
        ImportProgress(phase: .writing, fraction: 0.5, items: 120_000), 6.0, 2.0,
        "50% · 120,000 items written · 60,000 a second · about 6 s left"
      ),
      (
        ImportProgress(phase: .indexing, fraction: 0.65, items: 234_908), 130.0, 0.0,
        "65% · 234,908 items · building the index · about 1 min 10 s left"
      ),
      (
        ImportProgress(phase: .indexing, fraction: 1, items: 1), 3.0, 1.0,
        "100% · 1 item · building the index"
      ),
    ])
  func progressWording(
    progress: ImportProgress, elapsed: Double, inPhase: Double, expected: String
  ) {
    #expect(progress.summary(elapsed: elapsed, inPhase: inPhase) == expected)
  }

  @Test("an import whose schema does not fit the catalog is refused")
  func incompatible() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("cities.sqlite")
    _ = try CatalogImporter.run(file: Self.citySample, into: url, spec: Self.citySpec)
    let before = try CatalogStore.open(at: url).loadDocument()
    // population is a number field in the catalog; this file has it as text.
    let textual = try folder.write(
      "text.jsonl", "{\"id\":1,\"name\":\"A\",\"population\":\"many\"}\n")
    var spec = Self.citySpec
    spec.textFields = ["population"]
    spec.numberFields = []
    #expect {
      _ = try CatalogImporter.run(file: textual, into: url, spec: spec)
    } throws: {
      "\($0)".contains("field \"population\" is a number field in the catalog, not text")
    }
    spec = ImportSpec(titleField: "country", idField: "id")
    #expect {
      _ = try CatalogImporter.run(file: Self.citySample, into: url, spec: spec)
    } throws: { "\($0)".contains("the catalog's title field is \"name\", not \"country\"") }
    #expect(try CatalogStore.open(at: url).loadDocument() == before)
  }
}

@Suite("UTF-8 validation", .tags(.unit))
struct UTF8ValidationTests {
  @Test("agrees with Foundation on random and tricky bytes")
  func agreesWithFoundation() {
    var generator = SystemRandomNumberGenerator()
    let tricky: [[UInt8]] = [
      [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
      [0xF0, 0x9F, 0x91, 0x8D],
      [0xEF, 0xBB, 0xBF], [0x7F], [0xC3, 0xA9], [0xFF],
    ]
    for bytes in tricky {
      #expect(
        UTF8Validation.isValid(bytes) == (String(data: Data(bytes), encoding: .utf8) != nil),
        "\(bytes)")
    }
    let alphabet: [UInt8] = [
      0x41, 0x80, 0xBF, 0xC2, 0xC3, 0xE0, 0xE2, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0x9F, 0xA0,
    ]
    for _ in 0..<20_000 {
      let bytes = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
        alphabet.randomElement(using: &generator)!
      }
      #expect(
        UTF8Validation.isValid(bytes) == (String(data: Data(bytes), encoding: .utf8) != nil),
        "\(bytes)")
    }
  }
}

extension Array where Element: Equatable {
  /// The elements with each run of equal ones kept once.
  fileprivate func removingRepeats() -> [Element] {
    reduce(into: []) { kept, element in
      if kept.last != element { kept.append(element) }
    }
  }
}
