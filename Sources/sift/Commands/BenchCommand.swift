import ArgumentParser
import Dispatch
import Foundation
import Sift
import SiftStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sift bench`: per-keystroke latency of the SearchController the app uses.
struct BenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Type queries character by character and report per-keystroke latency.",
    discussion: """
      Each line of the queries file is typed into an empty search field one character at a time, \
      through the same SearchController the terminal app uses, searching at every keystroke. \
      The time of each keystroke is measured from the changed text to the first 20 rows being \
      ready.

      Examples:
        sift bench --catalog cities.sqlite --queries Benchmarks/queries/cities.txt
        sift bench --catalog products --queries queries.txt --json
      """
  )

  @Option(
    help:
      "A built-in catalog, a .sqlite file or a postgresql://HOST/DB?catalog=NAME address (each keystroke then one search in the database)."
  )
  var catalog: String

  @Option(help: "A file with one query a line; - or a pipe reads standard input.")
  var queries: String

  @Flag(
    help:
      "Also count the facets at every keystroke, as the terminal app does (the scope bar's and each category's counts); their time is part of each keystroke's and reported on its own."
  )
  var facets = false

  @Flag(
    help:
      "Also print every keystroke to standard error: its time, the text typed and the rows found — to see which keystrokes are slow."
  )
  var each = false

  @Option(
    help: ArgumentHelp(
      "Type every query with the results sorted by this field, as sift search --sort does.",
      valueName: "FIELD[:asc|:desc]"))
  var sort: String?

  @OptionGroup var place: PlaceOptions

  @Option(
    help: ArgumentHelp(
      "Type every query with one result per value of FIELD, as sift search --distinct does.",
      valueName: "FIELD"))
  var distinct: String?

  /// How many rows a keystroke reads: a screen, a page of the API's answer.
  static let screenRows = 20

  func validate() throws {
    if let sort, SearchSort(parsing: sort) == nil {
      throw ValidationError("--sort takes FIELD, FIELD:asc or FIELD:desc, not \"\(sort)\"")
    }
  }

  /// `--near` for `schema`: nil without it.
  ///
  /// - Throws: `SearchRequestError.noLocation` for a catalog without a location (exit 2).
  func resolvedPlace(_ schema: CatalogSchema) throws -> SearchNear? {
    guard let near = try place.searchNear() else { return nil }
    guard schema.location != nil else {
      throw Failure.usage(SearchRequestError.noLocation(catalog: schema.name))
    }
    return near
  }

  /// `--sort` as the catalog spells it.
  ///
  /// - Throws: `SearchRequestError.unsortable` for a field it cannot sort by (exit 2).
  func resolvedSort(_ schema: CatalogSchema) throws(SearchRequestError) -> SearchSort? {
    guard let asked = sort.flatMap(SearchSort.init(parsing:)) else { return nil }
    guard let resolved = schema.resolved(asked) else {
      throw .unsortable(asked.field, catalog: schema.name, sortable: schema.sortChoiceNames)
    }
    if resolved.isDistance, place.near == nil { throw .distanceWithoutPlace }
    return resolved
  }

  @Flag(
    help:
      "Print one JSON object: keystrokes, p50_ms, p90_ms, p99_ms, max_ms, peak_rss_mb, and the index's memory."
  )
  var json = false

  func run() async throws {
    let text = try TextFileReader.text(of: queries, what: "the queries file")
    let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    guard !lines.isEmpty else { throw Failure.exit("\(queries) has no queries", status: 2) }
    if case .postgres(let address) = try CatalogArgument(catalog).place {
      return try await runOnPostgres(address, lines)
    }
    try await bench(lines, file: catalog)
  }

  /// Types `lines` into the catalog at `file` (a built-in name or a .sqlite file).
  func bench(_ lines: [String], file: String) async throws {
    // Opening is three steps, timed apart: the file, its items, the index built over them.
    let started = DispatchTime.now()
    let store = try Failure.openCatalog(file)
    defer { try? store.close() }
    let fileMilliseconds = Self.milliseconds(since: started)
    let heapBeforeSession = ProcessMemory.heapInUse()
    let session = try Failure.catching { () throws(StoreError) in try CatalogSession(store: store) }
    let report = session.openReport
    let loadMilliseconds = Self.milliseconds(report.loadDuration)
    let indexMilliseconds = Self.milliseconds(report.indexDuration)
    if let notice = report.notice { StandardStreams.error("sift: \(notice)") }
    let heapAfterSession = ProcessMemory.heapInUse()
    var controller = SearchController(collection: session.collection)
    controller.send(.focus)
    do throws(SearchRequestError) {
      if let sort = try resolvedSort(controller.schema) { controller.send(.setSort(sort)) }
    } catch {
      throw Failure.usage(error)
    }
    if let near = try resolvedPlace(controller.schema) { controller.send(.setNear(near)) }
    if let box = try place.searchBox() {
      guard controller.schema.location != nil else {
        throw Failure.exit(
          "--within-box: \(SearchRequestError.noLocation(catalog: controller.schema.name))",
          status: 2)
      }
      controller.send(.setWithinBox(box))
    }
    if let distinct {
      do throws(SearchRequestError) {
        // The request names what is wrong with the field, as sift search does.
        _ = try SearchRequest(
          SearchRequestInput(text: "", distinct: distinct), schema: controller.schema)
      } catch {
        throw Failure.usage(error)
      }
      controller.send(.setDistinct(distinct))
    }
    let openMilliseconds = Self.milliseconds(since: started)
    // The app builds the near-spelling dictionaries in the background once a catalog is open;
    // here they are built before typing, and what they cost is reported on its own.
    let dictionaryStarted = DispatchTime.now()
    controller.collection.index.prepareNearSpellings()
    let dictionaryMilliseconds = Self.milliseconds(since: dictionaryStarted)
    let dictionary = controller.collection.index.nearSpellingMemory
    // So is the trigram index, which the app also builds in the background.
    let trigramsStarted = DispatchTime.now()
    controller.collection.index.prepareSubstringSearch()
    let trigramMilliseconds = Self.milliseconds(since: trigramsStarted)
    let trigramBytes = controller.collection.index.substringSearchMemory?.bytes ?? 0

    var facetLatencies: [Double] = []
    let times = await Self.typing(lines, each: each, clear: { controller.send(.setText("")) }) {
      typed in
      controller.send(.setText(typed))
      if facets {
        let counting = DispatchTime.now()
        blackHole(controller.facets)
        facetLatencies.append(Self.milliseconds(since: counting))
      }
      // The first screen of rows read, as the app draws them: under --distinct, the groups
      // past those the first rows in order hold are ranked here.
      blackHole(controller.collection.ids(atRows: 0..<Self.screenRows))
      return (controller.collection.rows.count, controller.collection.includesNearSpellings)
    }
    let latencies = times.all
    let nearKeystrokes = times.near
    facetLatencies.sort()
    let peak = ProcessMemory.peakResidentMegabytes()
    // After peak RSS is read: building a second index for the split raises it.
    let heap = try HeapPerItem(
      session: session, heapBefore: heapBeforeSession, heapAfter: heapAfterSession)
    let memory = controller.collection.memory
    let foldedRatio = Double(memory.foldedTextBytes) / Double(max(1, memory.rawTextBytes))
    if json {
      var object = JSONLine()
      Self.addTyping(times, facets: facets ? facetLatencies : nil, peak: peak, to: &object)
      if facets {
        object.add("facet_values", .number(Double(controller.collection.facets.categories.count)))
      }
      object.add("open_ms", .number(Self.round(openMilliseconds)))
      object.add("open_file_ms", .number(Self.round(fileMilliseconds)))
      object.add("load_items_ms", .number(Self.round(loadMilliseconds)))
      object.add("build_index_ms", .number(Self.round(indexMilliseconds)))
      object.add("index_from_file", .number(report.indexSource == .archive ? 1 : 0))
      object.add("items", .number(Double(controller.collection.totalCount)))
      object.add("raw_text_mb", .number(Self.round(Double(memory.rawTextBytes) / 1_048_576)))
      object.add("folded_text_mb", .number(Self.round(Double(memory.foldedTextBytes) / 1_048_576)))
      object.add("folded_to_raw", .number(Self.round(foldedRatio)))
      object.add("text_offset_bytes_per_item", .number(Double(memory.textOffsetBytesPerSlot)))
      object.add("index_bytes_per_item", .number(Double(memory.bytesPerSlot)))
      object.add("id_map_bytes_per_item", .number(Double(memory.idMapBytesPerItem)))
      if let heap {
        object.add("heap_bytes_per_item", .number(Double(heap.total)))
        object.add("heap_index_bytes_per_item", .number(Double(heap.index)))
        object.add("heap_elements_bytes_per_item", .number(Double(heap.elements)))
      }
      object.add("typo_dictionary_build_ms", .number(Self.round(dictionaryMilliseconds)))
      object.add("typo_dictionary_from_file", .bool(dictionary.wereStored))
      object.add("typo_dictionary_words", .number(Double(dictionary.words)))
      object.add(
        "typo_dictionary_mb", .number(Self.round(Double(dictionary.bytes) / 1_048_576)))
      object.add("near_spelling_keystrokes", .number(Double(nearKeystrokes)))
      object.add("trigram_build_ms", .number(Self.round(trigramMilliseconds)))
      object.add("trigram_mb", .number(Self.round(Double(trigramBytes) / 1_048_576)))
      print(object.line)
    } else {
      print(
        "catalog     \(catalog) (\(controller.collection.totalCount) items, opened in \(Self.format(openMilliseconds)) ms)"
      )
      print(
        "opening     file \(Self.format(fileMilliseconds)) ms · items loaded \(Self.format(loadMilliseconds)) ms · index \(report.indexSource == .archive ? "read from the file" : "built") \(Self.format(indexMilliseconds)) ms"
      )
      print(
        "keystrokes  \(latencies.count) from \(Self.counted(lines.count, "query", "queries"))"
      )
      Self.typingLines(times, facets: facets ? facetLatencies : nil).forEach { print($0) }
      print("peak RSS    \(Self.format(peak)) MB")
      print(
        "typos       word dictionaries of \(dictionary.words) words, \(Self.format(Double(dictionary.bytes) / 1_048_576)) MB, \(dictionary.wereStored ? "read from the file" : "built") in \(Self.format(dictionaryMilliseconds)) ms · \(Self.counted(nearKeystrokes, "keystroke")) showed near spellings"
      )
      print(
        "trigrams    \(Self.format(Double(trigramBytes) / 1_048_576)) MB, built in \(Self.format(trigramMilliseconds)) ms"
      )
      print(
        "index       folded text \(Self.format(Double(memory.foldedTextBytes) / 1_048_576)) MB for \(Self.format(Double(memory.rawTextBytes) / 1_048_576)) MB of raw text (\(Self.format(foldedRatio))×) + \(memory.textOffsetBytesPerSlot) bytes an item of offsets · \(memory.bytesPerSlot) bytes an item in all besides the text, + \(memory.idMapBytesPerItem) for the id map"
      )
      if let heap {
        print(
          "heap        \(heap.total) bytes an item once open: \(heap.index) for the index (folded text, numbers, ids, order), \(heap.elements) for the elements themselves"
        )
      }
    }
  }

  /// Heap bytes per item, measured: the whole session (elements and index), and an index built
  /// again from the same elements, alone (after typing, so it changes no other figure). A
  /// catalog's items are read from the file when shown, so its session holds the index alone.
  struct HeapPerItem {
    var total: Int
    var index: Int
    var elements: Int { total - index }

    /// nil where the heap cannot be read.
    init?(session: CatalogSession, heapBefore: Int?, heapAfter: Int?) throws {
      guard let heapBefore, let heapAfter else { return nil }
      let collection = session.collection
      let count = max(1, collection.totalCount)
      total = (heapAfter - heapBefore) / count
      // Items read from the file when shown: what the session holds is the index.
      if collection.readsElementsWhenShown {
        index = total
        return
      }
      let elements = collection.allItems
      let schema = try Failure.catching { () throws(CatalogSchemaError) in
        try SearchSchema<Item>(collection.schema)
      }
      let beforeIndex = ProcessMemory.heapInUse() ?? 0
      let index = try Failure.catching { () throws(CatalogEditError) in
        try SearchIndex(schema: schema, elements: elements)
      }
      let afterIndex = ProcessMemory.heapInUse() ?? 0
      withExtendedLifetime(index) {}
      self.index = (afterIndex - beforeIndex) / count
    }
  }

  /// Types each line into an empty field a character at a time; `keystroke` searches for the
  /// text so far and says how many rows it found and whether near spellings showed; `clear`
  /// empties the field between lines, untimed.
  static func typing(
    _ lines: [String], each: Bool, clear: () -> Void = {},
    keystroke: (String) async throws -> (rows: Int, nearSpellings: Bool)
  ) async rethrows -> KeystrokeTimes {
    var times = KeystrokeTimes()
    for query in lines {
      var typed = ""
      for character in query {
        let startsTerm = typed.last.map(\.isWhitespace) ?? true
        typed.append(character)
        let start = DispatchTime.now()
        let (rows, near) = try await keystroke(typed)
        let elapsed = milliseconds(since: start)
        if each { StandardStreams.error("\(format(elapsed)) ms\t\(typed)\t\(rows) rows") }
        times.all.append(elapsed)
        if near { times.near += 1 }
        if character.isWhitespace { continue }
        if startsTerm { times.firstOfTerm.append(elapsed) } else { times.refining.append(elapsed) }
      }
      clear()
    }
    times.all.sort()
    times.firstOfTerm.sort()
    times.refining.sort()
    return times
  }

  /// The typing figures every kind of catalog reports, under the same keys in the same order:
  /// keystrokes, percentiles, peak RSS, first and refining keystrokes, facets when counted.
  static func addTyping(
    _ times: KeystrokeTimes, facets: [Double]?, peak: Double, to object: inout JSONLine
  ) {
    let percentile = { (p: Double, values: [Double]) in
      Self.round(KeystrokeTimes.percentile(p, of: values))
    }
    object.add("keystrokes", .number(Double(times.all.count)))
    for (name, p) in [("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99)] {
      object.add(name, .number(percentile(p, times.all)))
    }
    object.add("max_ms", .number(Self.round(times.all.last ?? 0)))
    object.add("peak_rss_mb", .number(Self.round(peak)))
    object.add("first_keystroke_p50_ms", .number(percentile(0.5, times.firstOfTerm)))
    object.add("first_keystroke_p99_ms", .number(percentile(0.99, times.firstOfTerm)))
    object.add("refining_p50_ms", .number(percentile(0.5, times.refining)))
    object.add("refining_p99_ms", .number(percentile(0.99, times.refining)))
    if let facets {
      object.add("facets_p50_ms", .number(percentile(0.5, facets)))
      object.add("facets_p99_ms", .number(percentile(0.99, facets)))
    }
  }

  /// The same figures as lines of the report: latency, first key, refining, facets.
  /// "1 keystroke", "2 keystrokes": a count with its noun in the right number.
  static func counted(_ count: Int, _ noun: String, _ plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
  }

  static func typingLines(_ times: KeystrokeTimes, facets: [Double]?) -> [String] {
    let format = { (p: Double, values: [Double]) in
      Self.format(KeystrokeTimes.percentile(p, of: values))
    }
    var lines = [
      "latency     p50 \(format(0.5, times.all)) ms · p90 \(format(0.9, times.all)) ms · p99 \(format(0.99, times.all)) ms · max \(Self.format(times.all.last ?? 0)) ms",
      "first key   p50 \(format(0.5, times.firstOfTerm)) ms · p99 \(format(0.99, times.firstOfTerm)) ms (\(Self.counted(times.firstOfTerm.count, "keystroke")) starting a term)",
      "refining    p50 \(format(0.5, times.refining)) ms · p99 \(format(0.99, times.refining)) ms (\(times.refining.count))",
    ]
    if let facets {
      lines.append(
        "facets      p50 \(format(0.5, facets)) ms · p99 \(format(0.99, facets)) ms, counted at every keystroke and included above"
      )
    }
    return lines
  }

  /// Every keystroke's time, and apart those Benchmarks/README.md sets targets for: the first keystroke of
  /// a term and the refining ones. Sorted.
  struct KeystrokeTimes {
    var all: [Double] = []
    var firstOfTerm: [Double] = []
    var refining: [Double] = []
    /// Keystrokes whose rows included near spellings.
    var near = 0

    static func percentile(_ p: Double, of values: [Double]) -> Double {
      guard !values.isEmpty else { return 0 }
      return values[min(values.count - 1, Int((Double(values.count) * p).rounded(.up)) - 1)]
    }
  }

  static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }

  static func milliseconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
  }

  static func round(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

  static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

/// Keeps a value from being optimised away.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
