import Foundation

@testable import Sift

/// The simplest possible implementation of the matching and ordering docs/command-line.md ("Query syntax") and docs/ranking.md state: fold every string
/// again for every item, search it byte by byte. The engine's buffers, scans, refinement and
/// ranking must agree with it exactly.
struct ReferenceMatcher {
  let schema: CatalogSchema
  var typos: TypoTolerance = .automatic
  /// Each item's magnitude while a word is typed, from its place among the catalog's items
  /// (`magnitudes(of:)`): set by `rankedRows` for the items it ranks.
  var magnitudes: [ItemID: Int] = [:]

  func rows(items: [Item], criteria: SearchCriteria) -> [ItemID] {
    rankedRows(items: items, criteria: criteria).map(\.id)
  }

  /// The magnitude of docs/ranking.md, plainly: with a ranking field where larger is better, an item
  /// whose value fewer than ⌊V / 10^(k/2)⌋ items exceed (V: the items with a value) reaches
  /// magnitude k + 1, for k = 0…19. Its place, never its value.
  func magnitudes(of items: [Item]) -> [ItemID: Int] {
    guard let ranking = schema.rankingField, !ranking.isAscending else { return [:] }
    let values = items.compactMap { item in item[ranking.field].indexedNumber.map { (item.id, $0) }
    }
    var result: [ItemID: Int] = [:]
    for (id, value) in values {
      let above = values.count { $0.1 > value }
      var magnitude = 0
      for k in 0..<20 {
        let reach = Int((Double(values.count) / pow(10, Double(k) / 2)).rounded(.down))
        if above < reach { magnitude += 1 }
      }
      result[id] = magnitude
    }
    return result
  }

  /// The matching items with their rank tuples, best first; `nearSpellings` tells whether near
  /// spellings were looked for.
  func rankedRows(items: [Item], criteria: SearchCriteria) -> [(id: ItemID, rank: [Int])] {
    var matcher = self
    matcher.magnitudes = magnitudes(of: items)
    return matcher.rankedRowsWithMagnitudes(items: items, criteria: criteria)
  }

  private func rankedRowsWithMagnitudes(items: [Item], criteria: SearchCriteria) -> [(
    id: ItemID, rank: [Int]
  )] {
    var resolved = ResolvedCriteria(criteria, schema: schema)
    resolved.query.terms = Self.withSynonyms(resolved.query.terms, schema.synonyms)
    if resolved.allTerms.contains(where: { $0.alternatives != nil }) {
      return alternativeRows(items: items, resolved)
    }
    // Exact matches count toward the threshold when every term starts a word (exactness < 3),
    // or all of them when infix matches count.
    // While a query with a term that may have typos is typed in a catalog where popularity
    // weighs, only a start without typos weighing 7 or more (attribute 24 or less) counts.
    let positiveText = resolved.allTerms.filter { !$0.isNegated && $0.textCondition != nil }
    let anchored = Self.anchors(resolved)
    let strongStartsOnly =
      resolved.query.endsInTypedWord
      && positiveText.contains { Self.typoBudget($0, anchored: anchored) != nil }
      && schema.rankingField?.isAscending == false
    let counted = items.filter {
      guard matches($0, resolved, nearSpellings: false) else { return false }
      if typos.countsInfixMatches { return true }
      let rank = rank($0, resolved, nearSpellings: false)
      return strongStartsOnly ? rank[0] == 0 && rank[1] == 1 && rank[2] <= 24 : rank[1] < 4
    }
    // Near spellings look for a term with punctuation word by word.
    let split = Self.splitForNearSpellings(resolved)
    let near =
      typos.isEnabled && counted.count < typos.threshold
      && split.allTerms.contains {
        !$0.isNegated && Self.typoBudget($0, anchored: Self.anchors(split)) != nil
      }
    // Fewer word-start matches than the threshold: near spellings, and the words with their
    // spaces moved, each item at its best rank.
    let variants = typos.isEnabled ? Self.spellingVariants(resolved) : []
    let further = near || (typos.isEnabled && counted.count < typos.threshold && !variants.isEmpty)
    let searched = further ? split : resolved
    let matching = items.enumerated().filter {
      matches($0.element, searched, nearSpellings: further)
    }
    if further, !variants.isEmpty {
      let ranking = schema.rankingField
      return items.enumerated().compactMap { entry -> (ItemID, [Int], Double, Int)? in
        var ranks: [[Int]] = []
        if matches(entry.element, split, nearSpellings: true) {
          ranks.append(rank(entry.element, split, nearSpellings: true))
        }
        for variant in variants where matches(entry.element, variant) {
          ranks.append(rank(entry.element, variant, nearSpellings: false))
        }
        // The first best: the words as typed where a way of writing them ties.
        guard
          let best = ranks.min(by: {
            Self.orderKey($0).lexicographicallyPrecedes(Self.orderKey($1))
          })
        else { return nil }
        let popularity = ranking.flatMap { (entry.element[$0.field]).indexedNumber }
        let key = popularity.map { ranking!.isAscending ? $0 : -$0 } ?? .infinity
        return (entry.element.id, best, key, entry.offset)
      }
      .sorted {
        let (a, b) = (Self.orderKey($0.1), Self.orderKey($1.1))
        return a.lexicographicallyPrecedes(b) || (a == b && ($0.2, $0.3) < ($1.2, $1.3))
      }
      .map { ($0.0, $0.1) }
    }
    let ranking = schema.rankingField
    return matching.map { entry in
      let popularity = ranking.flatMap { (entry.element[$0.field]).indexedNumber }
      let key = popularity.map { ranking!.isAscending ? $0 : -$0 } ?? .infinity
      return (
        rank: rank(entry.element, searched, nearSpellings: further), popularity: key,
        position: entry.offset, id: entry.element.id
      )
    }
    .sorted {
      let (a, b) = (Self.orderKey($0.rank), Self.orderKey($1.rank))
      return a.lexicographicallyPrecedes(b)
        || (a == b && ($0.popularity, $0.position) < ($1.popularity, $1.position))
    }
    .map { ($0.id, $0.rank) }
  }

  /// A query with alternatives (`rose | tulip`, synonyms): matched as written, each item ranked
  /// by the best rank of the alternatives that match it, one holding a synonym after any other.
  func alternativeRows(items: [Item], _ resolved: ResolvedCriteria) -> [(id: ItemID, rank: [Int])] {
    let alternatives = Self.alternatives(resolved)
    let ranking = schema.rankingField
    return items.enumerated().compactMap { entry -> (ItemID, [Int], Double, Int)? in
      let ranks = alternatives.filter { matches(entry.element, $0.criteria) }.map {
        let rank = rank(entry.element, $0.criteria, nearSpellings: false)
        return [rank[1] == 4 ? 1 : 0, $0.synonym ? 1 : 0] + rank
      }
      guard let best = ranks.min(by: { $0.lexicographicallyPrecedes($1) }) else { return nil }
      let popularity = ranking.flatMap { (entry.element[$0.field]).indexedNumber }
      let key = popularity.map { ranking!.isAscending ? $0 : -$0 } ?? .infinity
      return (entry.element.id, best, key, entry.offset)
    }
    .sorted {
      $0.1.lexicographicallyPrecedes($1.1)
        || ($0.1 == $1.1 && ($0.2, $0.3) < ($1.2, $1.3))
    }
    .map { ($0.0, Array($0.1.dropFirst(2))) }
  }

  /// The synonym rule of docs/command-line.md, plainly: left to right, the longest run of plain positive terms
  /// whose words equal an expression (folded, one space between words) becomes "either the run,
  /// or each expression it finds" — a word as a term, several as a phrase. Inside `a | b`, each
  /// alternative the same way.
  static func withSynonyms(_ terms: [QueryTerm], _ synonyms: Synonyms) -> [QueryTerm] {
    func key(_ text: String) -> String {
      TextFolding.fold(text).split(separator: " ").joined(separator: " ")
    }
    var finds: [String: [String]] = [:]
    for entry in synonyms.entries {
      let sources = entry.expressions.map(key)
      let targets = (entry.to ?? entry.expressions).map(key)
      for source in sources {
        for target in targets where target != source && !(finds[source] ?? []).contains(target) {
          finds[source, default: []].append(target)
        }
      }
    }
    if finds.isEmpty { return terms }
    var result: [QueryTerm] = []
    var index = 0
    while index < terms.count {
      if case .either(let alternatives) = terms[index].condition {
        var term = terms[index]
        term.condition = .either(alternatives.map { withSynonyms($0, synonyms) })
        result.append(term)
        index += 1
        continue
      }
      var plain = index
      while plain < terms.count, !terms[plain].isNegated,
        let text = terms[plain].textCondition, text.field == nil, text.synonymOf == nil
      {
        plain += 1
      }
      var replaced = false
      for end in stride(from: plain, to: index, by: -1) {
        let run = Array(terms[index..<end])
        let typed = key(run.map { $0.textCondition!.needle }.joined(separator: " "))
        guard let targets = finds[typed] else { continue }
        let range = run.first!.range.lowerBound..<run.last!.range.upperBound
        let alternatives =
          [run]
          + targets.map { target in
            [
              QueryTerm(
                condition: .text(
                  TextCondition(
                    needle: target, isPhrase: target.contains(" "),
                    number: target.contains(" ") ? nil : NumberFilterSyntax.number(target),
                    synonymOf: typed)), range: range)
            ]
          }
        result.append(QueryTerm(condition: .either(alternatives), range: range))
        index = end
        replaced = true
        break
      }
      if !replaced {
        result.append(terms[index])
        index += 1
      }
    }
    return result
  }

  /// Every way to pick one alternative of each `either` term, as plain criteria, and whether it
  /// holds a synonym. Each is ranked as finished words.
  static func alternatives(
    _ resolved: ResolvedCriteria
  ) -> [(criteria: ResolvedCriteria, synonym: Bool)] {
    func expand(_ terms: [QueryTerm]) -> [[QueryTerm]] {
      var result: [[QueryTerm]] = [[]]
      for term in terms {
        if let alternatives = term.alternatives {
          let choices = alternatives.flatMap(expand)
          result = result.flatMap { prefix in choices.map { prefix + $0 } }
        } else {
          result = result.map { $0 + [term] }
        }
      }
      return result
    }
    var result: [(ResolvedCriteria, Bool)] = []
    for text in expand(resolved.query.terms) {
      for tokens in expand(resolved.tokenTerms) {
        var criteria = resolved
        criteria.query.terms = text
        criteria.tokenTerms = tokens
        // Ranked as finished words when the searcher's terms offer the alternatives.
        if (resolved.query.terms + resolved.tokenTerms).contains(where: { $0.alternatives != nil })
        {
          criteria.query.text += " "
        }
        // Not when a synonym stands for every word: the query equals the synonym.
        let words = (text + tokens).filter { !$0.isNegated }.compactMap(\.textCondition)
        let synonyms = words.count { $0.synonymOf != nil }
        let synonym = synonyms > 0 && synonyms < words.count
        result.append((criteria, synonym))
      }
    }
    return result
  }

  /// The joined, split and dotted words of docs/ranking.md, plainly: each two neighbouring plain words
  /// joined, then each plain word split in two at every letter, with a space, a hyphen or (in a
  /// word of four letters at most) a dot between — every way one at a time, the first 64, each
  /// ranked as the words typed are.
  static func spellingVariants(_ resolved: ResolvedCriteria) -> [ResolvedCriteria] {
    let terms = resolved.query.terms + resolved.tokenTerms
    guard !terms.contains(where: { $0.alternatives != nil }) else { return [] }
    func isPlain(_ term: QueryTerm) -> Bool {
      guard !term.isNegated, let condition = term.textCondition else { return false }
      return condition.field == nil && !condition.isPhrase && condition.number == nil
        && !condition.matchesInitials && condition.synonymOf == nil
        && !condition.needle.utf8.contains(where: isBoundary)
    }
    func variant(_ needle: String, of typed: String, _ range: Range<Int>) -> QueryTerm {
      QueryTerm(
        condition: .text(TextCondition(needle: needle, synonymOf: typed, movesSpaces: true)),
        range: range)
    }
    var variants: [[QueryTerm]] = []
    for index in terms.indices.dropLast() where isPlain(terms[index]) && isPlain(terms[index + 1]) {
      let (left, right) = (
        terms[index].textCondition!.needle, terms[index + 1].textCondition!.needle
      )
      var joined = terms
      joined[index] = variant(
        left + right, of: left + " " + right,
        terms[index].range
          .lowerBound..<max(
            terms[index].range.upperBound, terms[index + 1].range.upperBound))
      joined.remove(at: index + 1)
      variants.append(joined)
    }
    for (index, term) in terms.enumerated() where isPlain(term) {
      let typed = term.textCondition!.needle
      let letters = Array(typed.unicodeScalars)
      guard (2...24).contains(letters.count) else { continue }
      for cut in 1..<letters.count {
        let left = String(String.UnicodeScalarView(letters[..<cut]))
        let right = String(String.UnicodeScalarView(letters[cut...]))
        for separator in letters.count <= 4 ? [" ", "-", "."] : [" ", "-"] {
          var split = terms
          split[index] = variant(left + separator + right, of: typed, term.range)
          variants.append(split)
        }
      }
    }
    return variants.prefix(64).map { terms in
      var criteria = resolved
      criteria.query.terms = terms
      criteria.tokenTerms = []
      return criteria
    }
  }

  /// The criteria near spellings are looked for with: a plain, positive term holding
  /// punctuation ("cluj-napcoa") becomes one term per word.
  static func splitForNearSpellings(_ resolved: ResolvedCriteria) -> ResolvedCriteria {
    var split = resolved
    split.query.terms = resolved.query.terms.flatMap { term -> [QueryTerm] in
      guard !term.isNegated, let condition = term.textCondition, condition.field == nil,
        !condition.isPhrase, condition.number == nil, !condition.matchesInitials,
        condition.needle.utf8.contains(where: isBoundary)
      else { return [term] }
      let words = condition.needle.utf8.split(whereSeparator: isBoundary)
      return words.isEmpty
        ? [term]
        : words.map {
          QueryTerm(
            condition: .text(TextCondition(needle: String(decoding: $0, as: UTF8.self))),
            range: term.range)
        }
    }
    return split
  }

  /// How a rank tuple orders: a match inside a word (exactness 4) after every other, then as
  /// it reads (typos first: a near spelling of a word start never before an exact one).
  static func orderKey(_ rank: [Int]) -> [Int] { [rank[1] == 4 ? 1 : 0] + rank }

  /// The agreement (docs/ranking.md) of an item whose value equals or starts with the query: twice 3
  /// less the fields with a value equal to the query (at most 3), plus 1 unless the title holds
  /// every term at the start of a word.
  static func agreement(titleHoldsTerms: Bool, equalFields: Int) -> Int {
    (3 - min(3, equalFields)) * 2 + (titleHoldsTerms ? 0 : 1)
  }

  /// The fields unfielded terms search.
  func searched(_ resolved: ResolvedCriteria) -> (text: [String], numbers: [String]) {
    if case .fields(let names) = resolved.scope?.filter {
      return (
        schema.indexedTextFields.filter { names.contains($0.name) }.map(\.name),
        schema.fields.filter { $0.kind == .number && names.contains($0.name) }.map(\.name)
      )
    }
    return (
      // A searched category is text too, after every other field.
      schema.indexedTextFields.filter(\.isSearchable).map(\.name),
      schema.fields.filter { $0.kind == .number && $0.isSearchable }.map(\.name)
    )
  }

  func matches(_ item: Item, _ resolved: ResolvedCriteria, nearSpellings: Bool = false) -> Bool {
    let anchored = Self.anchors(resolved)
    let (textFields, numberFields) = searched(resolved)
    if case .category(let value) = resolved.scope?.filter {
      guard let field = schema.categoryField,
        let category = item[field]?.strings.first,
        TextFolding.fold(category) == TextFolding.fold(value)
      else { return false }
    }
    for term in resolved.allTerms {
      let hit: Bool
      switch term.condition {
      case .text(let condition):
        let fields = condition.field.map { [$0] } ?? textFields
        let needle = Array(condition.needle.utf8)
        hit =
          fields.contains { field in
            (item[field]).indexedStrings.contains { string in
              condition.movesSpaces
                ? Self.containsWordStart(Array(TextFolding.fold(string).utf8), needle)
                : condition.synonymOf != nil
                  ? Self.containsWholeWords(Array(TextFolding.fold(string).utf8), needle)
                  : Self.contains(Array(TextFolding.fold(string).utf8), needle)
                    || (condition.matchesInitials
                      && TextFolding.initialConsonants(of: string).map {
                        Self.contains(Array($0.utf8), needle)
                      } == true)
                    || (Readings.mayMatch(condition)
                      && Self.containsWordStart(Self.readings(of: string), needle))
            }
          }
          || (condition.field == nil
            && condition.number.map { number in
              numberFields.contains { (item[$0]).indexedNumber == number }
            } == true)
          || (nearSpellings && !term.isNegated
            && nearest(term, in: item, fields: fields, anchored: anchored) != nil)
      case .number(let field, let predicate):
        hit = (item[field]).indexedNumber.map(predicate.matches) ?? false
      case .category(let field, let value):
        hit = item[field]?.strings.first.map { TextFolding.fold($0) == value } ?? false
      case .either(let alternatives):
        hit = alternatives.contains { terms in
          var alternative = resolved
          alternative.query.terms = terms
          alternative.tokenTerms = []
          return matches(item, alternative, nearSpellings: false)
        }
      }
      if hit == term.isNegated { return false }
    }
    return true
  }

  /// The rank tuple: typos, exactness, attribute, position.
  func rank(_ item: Item, _ resolved: ResolvedCriteria, nearSpellings: Bool) -> [Int] {
    let anchored = Self.anchors(resolved)
    let (textFields, numberFields) = searched(resolved)
    let terms = resolved.allTerms.filter { !$0.isNegated && $0.textCondition != nil }
    guard !terms.isEmpty else { return [0, 0, 0, 0] }
    let allText = schema.indexedTextFields.map(\.name)
    let allNumbers = schema.fields.filter { $0.kind == .number }.map(\.name)
    // Names first (the title, then other names), then the fields that describe the item.
    let isName = { (field: String) in
      field == schema.titleField || schema.field(named: field)?.namesItem == true
    }
    let describing = allText.filter { !isName($0) }
    func attribute(_ field: String) -> Int {
      if isName(field) { return 0 }
      if let index = describing.firstIndex(of: field) { return index + 1 }
      return allText.count + (allNumbers.firstIndex(of: field) ?? 0)
    }
    var best: [Int]?  // attribute, position
    func consider(_ candidate: [Int]) {
      if best.map({ candidate.lexicographicallyPrecedes($0) }) ?? true { best = candidate }
    }
    let query = terms.map { $0.textCondition!.needle }.joined(separator: " ")
    var equals = false
    var startsValue = false
    // The best attribute of a value equal to the query, and of one starting with it: the one
    // that decides the exactness gives the rank's attribute, at position 0.
    var equalAttribute = Int.max
    var startingAttribute = Int.max
    var equalFields = 0
    var (equalInTitle, startsInTitle) = (false, false)
    let finished = !resolved.query.endsInTypedWord
    let queryFields = Set(terms.flatMap { $0.textCondition!.field.map { [$0] } ?? textFields })
    for field in queryFields {
      let folded = (item[field]).indexedStrings.map { TextFolding.fold($0) }
      // A describing value equal to the query agrees with it; only a name decides.
      if folded.contains(query) {
        equalFields += 1
        guard isName(field) else { continue }
        equals = true
        equalAttribute = min(equalAttribute, attribute(field))
        if field == schema.titleField { equalInTitle = true }
      } else if isName(field),
        folded.contains(where: { value in
          // A finished query starts a value only where its last word ends one of the value's.
          let bytes = Array(value.utf8)
          return bytes.starts(with: query.utf8)
            && (!finished || bytes.count == query.utf8.count
              || Self.isBoundary(bytes[query.utf8.count]))
        })
      {
        if field == schema.titleField { startsInTitle = true }
        startsValue = true
        startingAttribute = min(startingAttribute, attribute(field))
      }
    }
    if terms.count == 1, let condition = terms[0].textCondition, condition.field == nil,
      let number = condition.number
    {
      for field in numberFields where (item[field]).indexedNumber == number {
        equals = true
        equalFields += 1
        equalAttribute = min(equalAttribute, attribute(field))
      }
    }
    // Whether the title holds every term at the start of a word: the agreement's first part.
    let titleHoldsTerms = terms.allSatisfy { term in
      let condition = term.textCondition!
      guard (condition.field.map { [$0] } ?? textFields).contains(schema.titleField) else {
        return false
      }
      let needle = Array(condition.needle.utf8)
      return (item[schema.titleField]).indexedStrings.contains { string in
        let folded = Array(TextFolding.fold(string).utf8)
        return Self.offsets(folded, needle).contains {
          $0 == 0 || Self.isBoundary(folded[$0 - 1])
        }
      }
    }
    // Only where no ranking field decides the ties instead.
    let weighsAgreement = schema.rankingField == nil
    let agreement =
      weighsAgreement
      ? Self.agreement(titleHoldsTerms: titleHoldsTerms, equalFields: equalFields) : 0
    // A space moved is one edit spent before matching (and taken from a typed start's weight).
    let spent = terms.contains { $0.textCondition!.movesSpaces } ? 1 : 0
    var typoCount = spent
    var allWordStarts = true
    for term in terms {
      let condition = term.textCondition!
      let fields = condition.field.map { [$0] } ?? textFields
      let needle = Array(condition.needle.utf8)
      var found = false
      var wordStart = false
      for field in fields {
        // The first occurrence over the field's values, in order, gives the position.
        var first: Int?
        for string in (item[field]).indexedStrings {
          let folded = Array(TextFolding.fold(string).utf8)
          for offset in Self.offsets(folded, needle) {
            if first == nil { first = Self.wordIndex(of: offset, in: folded) }
            if offset == 0 || Self.isBoundary(folded[offset - 1]) { wordStart = true }
          }
          if condition.matchesInitials,
            let initials = TextFolding.initialConsonants(of: string).map({ Array($0.utf8) }),
            Self.contains(initials, needle)
          {
            found = true
            consider([attribute(field), 7])
            // Initials start a word as letters do.
            for offset in Self.offsets(initials, needle)
            where offset == 0 || Self.isBoundary(initials[offset - 1]) {
              wordStart = true
            }
          }
          // Pinyin and romaji too, where a word of them starts: a value's first run read
          // whole at position 1, begun at 2, anything later at 3.
          let readings = Self.readings(of: string)
          if Readings.mayMatch(condition) {
            for offset in Self.offsets(readings, needle)
            where offset == 0 || Self.isBoundary(readings[offset - 1]) {
              found = true
              wordStart = true
              // The bytes before it, back to the value's start: only its run's marker.
              let before = readings[..<offset].filter { $0 < 5 }
              let firstRun =
                before.count == 1 && readings.first == before.first
                && before.first! >= 1 && before.first! <= 3
              let end = offset + needle.count
              let whole = end == readings.count || Self.isBoundary(readings[end])
              consider([attribute(field), firstRun ? (whole ? 1 : 2) : 3])
            }
          }
        }
        if let first {
          found = true
          consider([attribute(field), min(first, 7)])
        }
      }
      if condition.field == nil, let number = condition.number {
        for field in numberFields where (item[field]).indexedNumber == number {
          found = true
          wordStart = true
          consider([attribute(field), 0])
        }
      }
      if !found, nearSpellings,
        let near = nearest(term, in: item, fields: fields, anchored: anchored)
      {
        typoCount += near.cost
        wordStart = true
        consider([attribute(near.field), min(near.word, 7)])
      }
      allWordStarts = allWordStarts && wordStart
    }
    let magnitude = magnitudes[item.id] ?? 0
    if resolved.query.endsInTypedWord, !equals, !startsValue, nearSpellings, typoCount > spent,
      terms.count == 1, let budget = Self.typoBudget(terms[0])
    {
      // A one-word query being typed, misspelt: a value starting with a word within the budget
      // (whole, or its beginning) is a start, 12 taken from its weight per edit. It equals when
      // the value is that word and the cheapest beginning is all of it.
      let letters = Array(query.unicodeScalars)
      var start: (key: [Int], points: Int, cost: Int, attribute: Int)?
      var nearEqualFields = 0
      for field in textFields where isName(field) {
        var fieldEquals = false
        defer { if fieldEquals { nearEqualFields += 1 } }
        for string in item[field].indexedStrings {
          let folded = TextFolding.fold(string)
          guard let lead = folded.utf8.first, !Self.isBoundary(lead),
            let first = folded.utf8.split(whereSeparator: Self.isBoundary).first
          else { continue }
          let word = Array(String(decoding: first, as: UTF8.self).unicodeScalars)
          let costs = (1...word.count).map { Self.distance(letters, Array(word[0..<$0])) }
          guard let cost = costs.min(), cost <= budget else { continue }
          let isEqual = folded == String(decoding: first, as: UTF8.self) && costs.last == cost
          if isEqual { fieldEquals = true }
          let isTitle = field == schema.titleField
          let points = isTitle && isEqual ? 9 : isTitle || isEqual ? 4 : 0
          let key = [12 * cost - points, cost, attribute(field)]
          if start.map({ key.lexicographicallyPrecedes($0.key) }) ?? true {
            start = (key, points, cost, attribute(field))
          }
        }
      }
      if let start {
        return [
          start.cost, 1, 31 - min(31, max(0, magnitude + start.points - 11 * start.cost)),
          weighsAgreement
            ? Self.agreement(
              titleHoldsTerms: textFields.contains(schema.titleField)
                && nearest(terms[0], in: item, fields: [schema.titleField]) != nil,
              equalFields: nearEqualFields) : 0,
        ]
      }
    }
    if resolved.query.endsInTypedWord, equals || startsValue {
      // The last word is being typed: every value equal to the query or starting with it is a
      // start, weighed by its magnitude (its place in the popularity order) and 9 points
      // for a title equal to the query, 4 for a title starting with it or another name equal.
      let titleEquals = equalInTitle
      let titleStarts = titleEquals || startsInTitle
      let points = titleEquals ? 9 : titleStarts || equals ? 4 : 0
      return [
        min(typoCount, 7), 1, 31 - min(31, max(0, magnitude + points - 11 * spent)), agreement,
      ]
    }
    // A finished term (each but the last while it is typed) that occurs only inside longer
    // words, never whole: word beginnings.
    let finishedTerms = resolved.query.endsInTypedWord ? terms.dropLast() : terms[...]
    let begun = finishedTerms.contains { term in
      let condition = term.textCondition!
      if condition.matchesInitials { return false }
      if condition.field == nil, let number = condition.number,
        numberFields.contains(where: { (item[$0]).indexedNumber == number })
      {
        return false
      }
      let needle = Array(condition.needle.utf8)
      let values = (condition.field.map { [$0] } ?? textFields).flatMap { field in
        (item[field]).indexedStrings.map { Array(TextFolding.fold($0).utf8) }
      }
      let occurs = values.contains { Self.contains($0, needle) }
      return occurs && !values.contains { Self.containsWholeWords($0, needle) }
    }
    let exactness = equals ? 0 : startsValue ? 1 : allWordStarts ? (begun ? 3 : 2) : 4
    if equals || startsValue {
      return [
        min(typoCount, 7), exactness, min(equals ? equalAttribute : startingAttribute, 31),
        agreement,
      ]
    }
    // The title's coverage, then word position, rank after popularity: in the tuple only
    // without a ranking field. Every word of the title must start with a word of a term.
    let queryWords = terms.flatMap { Self.words(Array($0.textCondition!.needle.utf8)) }
    let titleCovered = (item[schema.titleField]).indexedStrings.allSatisfy { title in
      Self.words(Array(TextFolding.fold(title).utf8)).allSatisfy { word in
        queryWords.contains { $0.count <= word.count && Array(word.prefix($0.count)) == $0 }
      }
    }
    return [
      min(typoCount, 7), exactness, min(best?[0] ?? 31, 31),
      weighsAgreement ? (titleCovered ? 0 : 4) + min(best?[1] ?? 7, 3) : 0,
    ]
  }

  /// The edits a term may have, or nil when it may have none.
  static func typoBudget(_ term: QueryTerm, anchored: Bool = false) -> Int? {
    guard let condition = term.textCondition, condition.field == nil, !condition.isPhrase,
      condition.number == nil, !condition.matchesInitials,
      !condition.needle.utf8.contains(where: isBoundary)
    else { return nil }
    let letters = condition.needle.unicodeScalars.count
    let budget = letters >= 8 ? 2 : letters >= 4 ? 1 : anchored && letters == 3 ? 1 : 0
    return budget > 0 && letters <= 64 ? budget : nil
  }

  /// The cheapest word beginning within the term's budget in `fields`: its cost, field, and the
  /// index of its word in its value. Ties: earlier field, then earlier word.
  /// Whether the query's short words may have a typo: two plain positive words or more, one of
  /// them a word of four letters or more.
  static func anchors(_ resolved: ResolvedCriteria) -> Bool {
    let plain = resolved.allTerms.compactMap { term -> TextCondition? in
      guard !term.isNegated, let condition = term.textCondition, condition.field == nil,
        !condition.isPhrase, condition.number == nil, !condition.matchesInitials
      else { return nil }
      return condition
    }
    return plain.count > 1
      && plain.contains {
        !$0.needle.utf8.contains(where: isBoundary) && $0.needle.unicodeScalars.count >= 4
      }
  }

  func nearest(_ term: QueryTerm, in item: Item, fields: [String], anchored: Bool = false) -> (
    cost: Int, field: String, word: Int
  )? {
    guard let budget = Self.typoBudget(term, anchored: anchored) else { return nil }
    let letters = Array(term.textCondition!.needle.unicodeScalars)
    var best: (cost: Int, field: String, word: Int)?
    for field in fields {
      for string in (item[field]).indexedStrings {
        let folded = TextFolding.fold(string)
        let words = folded.utf8.split(whereSeparator: Self.isBoundary).map {
          Array(String(decoding: $0, as: UTF8.self).unicodeScalars)
        }
        for (index, word) in words.enumerated() {
          for length in 1...word.count {
            let cost = Self.distance(letters, Array(word[0..<length]))
            if cost <= budget, cost < (best?.cost ?? .max) { best = (cost, field, index) }
          }
        }
      }
    }
    return best
  }

  /// Optimal string alignment distance where an edit touching the first letter of either
  /// string costs 2: the whole table, plainly.
  static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    func cost(_ i: Int, _ j: Int) -> Int { i == 1 || j == 1 ? 2 : 1 }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 1...max(1, a.count) where i <= a.count { d[i][0] = d[i - 1][0] + (i == 1 ? 2 : 1) }
    for j in 1...max(1, b.count) where j <= b.count { d[0][j] = d[0][j - 1] + (j == 1 ? 2 : 1) }
    for i in stride(from: 1, through: a.count, by: 1) {
      for j in stride(from: 1, through: b.count, by: 1) {
        var value = min(d[i - 1][j] + (i == 1 ? 2 : 1), d[i][j - 1] + (j == 1 ? 2 : 1))
        value = min(value, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : cost(i, j)))
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          value = min(value, d[i - 2][j - 2] + (i == 2 || j == 2 ? 2 : 1))
        }
        d[i][j] = value
      }
    }
    return d[a.count][b.count]
  }

  /// The index of the word holding byte `offset` of a folded value.
  static func wordIndex(of offset: Int, in folded: [UInt8]) -> Int {
    var starts = 0
    for index in 0...offset
    where !isBoundary(folded[index]) && (index == 0 || isBoundary(folded[index - 1])) {
      starts += 1
    }
    return max(0, starts - 1)
  }

  /// A value's readings (`Readings`: Hangul initials, pinyin, romaji) as the index keeps them.
  static func readings(of string: String) -> [UInt8] {
    var bytes: [UInt8] = []
    Readings.append(of: string, to: &bytes)
    return bytes
  }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    !offsets(haystack, needle).isEmpty
  }

  /// Whether `needle` occurs from a word's start: how words with their spaces moved match.
  static func containsWordStart(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    offsets(haystack, needle).contains { $0 == 0 || isBoundary(haystack[$0 - 1]) }
  }

  /// Whether `needle` occurs from a word's start to a word's end: how a synonym matches.
  static func containsWholeWords(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    offsets(haystack, needle).contains { offset in
      let end = offset + needle.count
      return (offset == 0 || isBoundary(haystack[offset - 1]))
        && (end == haystack.count || isBoundary(haystack[end]))
    }
  }

  static func offsets(_ haystack: [UInt8], _ needle: [UInt8]) -> [Int] {
    guard !needle.isEmpty, needle.count <= haystack.count else { return [] }
    return (0...(haystack.count - needle.count)).filter {
      Array(haystack[$0..<$0 + needle.count]) == needle
    }
  }

  /// The words of folded bytes: runs of bytes that do not separate words.
  static func words(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(whereSeparator: isBoundary).map(Array.init)
  }

  static func isBoundary(_ byte: UInt8) -> Bool {
    byte < 0x80 && !(byte >= 0x30 && byte <= 0x39) && !(byte >= 0x61 && byte <= 0x7A)
      && !(byte >= 0x41 && byte <= 0x5A)
  }
}
