/// The agreement: where nothing before it decides, how an item whose value equals or starts with
/// the query agrees with it. Weighed only where no ranking field breaks those ties
/// (`RankingContext.weighsAgreement`), and always near a place.
extension MatchRank {
  /// Where nothing before it decides — no popularity, as in most catalogs people import — how
  /// an item whose value equals or starts with the query agrees with it, smaller first: the
  /// more fields with a value equal to the query (three or more count as three), then whether
  /// its title holds every term at the start of a word. "zurich": Zurich Airport (city and
  /// region equal, and the title) before Dübendorf (city and region alone); "sin": Singapore
  /// Changi (code SIN, and the title) before Sinele Strip (the title alone); "gru": São Paulo's
  /// Guarulhos (code GRU) before the airports whose names start with "Gru". It sits where such
  /// a rank's word position (always 0) would be.
  package static func agreement(titleHoldsTerms: Bool, equalFields: Int) -> Int {
    (3 - min(3, max(0, equalFields))) * 2 + (titleHoldsTerms ? 0 : 1)
  }

  /// Whether the position bits hold the agreement: a value equal to the query or starting with
  /// it (or, while a one-word query is typed, with a near spelling of it).
  var holdsAgreement: Bool { exactness <= .startsValue }

  /// For a rank that holds one (`agreement`), whether the title holds every term at a word's
  /// start; nil otherwise.
  public var titleHoldsTerms: Bool? { holdsAgreement ? position % 2 == 0 : nil }

  /// For a rank that holds an agreement, how many fields have a value equal to the query (3
  /// for three or more); nil otherwise.
  public var equalFields: Int? { holdsAgreement ? 3 - position / 2 : nil }
}
