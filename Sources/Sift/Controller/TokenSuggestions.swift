extension CatalogSchema {
  /// Tokens offered for the word being typed at the end of `text`: the catalog's categories
  /// (and extra tokens) whose text has a word starting with it, "cho" → Chocolate — or when
  /// none has, a word within its typo budget, "#chocolte" → Chocolate (`FacetValue`'s rule). A
  /// word starting with `#` asks for them explicitly, and `#` alone offers them all. Tokens
  /// already in the field are not offered again.
  ///
  /// `known`: category values the catalog's items hold that its schema does not list (a value
  /// an edit added, "Ferret"), offered after the schema's, as the items spell them.
  public func suggestedTokens(
    forText text: String, excluding present: [SearchToken],
    known: some Sequence<String> = [String]()
  ) -> [SearchToken] {
    guard let fragment = Self.suggestionFragment(of: text) else { return [] }
    let folded = TextFolding.fold(fragment.word)
    guard fragment.isExplicit || folded.count >= 2 else { return [] }
    let present = Set(present.map(\.identifier))
    // A word of the token starts with the word typed; else one within its typo budget
    // ("#frnace" offers France), as a category's values are searched.
    var offered = suggestedTokens
    if categoryField != nil {
      // Folded as the index keys them: only values the schema does not list are added.
      let listed = Set(offered.map { TextFolding.fold($0.text) })
      offered += known.filter { !listed.contains(TextFolding.fold($0)) }.sorted().map {
        SearchToken(text: $0, identifier: "category:\($0)")
      }
    }
    return FacetValueMatcher(fragment.word).filter(
      offered.filter { !present.contains($0.identifier) }, name: \.text)
  }

  /// The last word of the text, when the text ends in one, and whether it starts with `#`.
  static func suggestionFragment(of text: String) -> (
    start: String.Index, word: String, isExplicit: Bool
  )? {
    guard let last = text.last, !last.isWhitespace else {
      return text.hasSuffix("#") ? (text.index(before: text.endIndex), "", true) : nil
    }
    let start = text.lastIndex(where: \.isWhitespace).map(text.index(after:)) ?? text.startIndex
    var word = text[start...]
    if word.hasPrefix("-") { return nil }
    let explicit = word.hasPrefix("#")
    if explicit { word = word.dropFirst() }
    if word.contains(":") { return nil }
    return (start, String(word), explicit)
  }

  /// The text once the suggestion being typed at its end is taken as a token: the word removed.
  static func textAcceptingSuggestion(_ text: String) -> String {
    guard let fragment = suggestionFragment(of: text) else { return text }
    var kept = String(text[..<fragment.start]).trimmingTrailingWhitespace()
    if !kept.isEmpty { kept += " " }
    return kept
  }
}
