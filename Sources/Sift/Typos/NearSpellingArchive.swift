import Dispatch

/// The near-spelling word dictionaries as bytes, kept in a catalog file beside the index
/// archive: building them reads every word of the catalog (0.8 s for the cities, 2.6 s at four
/// times), reading them back is a copy. They number slots as the index archive does, so they
/// are only valid with the archive they were written with.
///
/// Layout (little-endian): `ArchiveWriter`'s header (magic "SIFTNS", format version, the
/// schema's and the folding table's fingerprints), the slot count, the number of dictionaries,
/// then per dictionary its text column (u32), the slots it covers, its words, word offsets,
/// posting offsets and postings; last a 64-bit checksum of everything before it.
package enum NearSpellingArchive {
  /// Version 2 added the folding table's fingerprint; version 3 aligns arrays to 8 bytes and
  /// checksums in four lanes (as `IndexArchive` 3).
  static let formatVersion: UInt16 = 3
  static let magic: [UInt8] = Array("SIFTNS".utf8)

  /// The dictionaries in `bytes`, by text column; throws for bytes that are not a whole,
  /// unaltered archive of this version and schema, or whose offsets do not fit.
  static func dictionaries(
    from bytes: UnsafeRawBufferPointer, keptBy owner: (any AnyObject & Sendable)? = nil,
    checksum: IndexArchive.ChecksumCheck = .verify, schema: CatalogSchema, columnCount: Int,
    slotLimit: Int
  ) throws(IndexArchive.Failure) -> [Int: TypoDictionary] {
    let started = DispatchTime.now()
    var reader = try ArchiveReader(
      opening: bytes, magic: magic, version: formatVersion, schema: schema, checksum: checksum)
    reader.owner = owner
    let slotCount = Int(clamping: try reader.read() as UInt64)
    guard slotCount <= slotLimit else { throw .damaged("slot count") }
    let count = Int(clamping: try reader.read() as UInt64)
    guard count <= columnCount else { throw .damaged("dictionary count") }
    var dictionaries: [Int: TypoDictionary] = [:]
    for _ in 0..<count {
      let column = Int(try reader.read() as UInt32)
      guard column < columnCount, dictionaries[column] == nil else {
        throw .damaged("dictionary column")
      }
      dictionaries[column] = try TypoDictionary.read(
        from: &reader, slotLimit: slotCount, started: started)
    }
    guard reader.offset == reader.end else { throw .damaged("trailing bytes") }
    return dictionaries
  }
}

extension SearchIndex where ID == ItemID {
  /// The word dictionaries of every searchable text column, numbering slots as `archived()`
  /// does: dictionaries already built are reused when the slots are numbered so already (no
  /// edit since the index was built or read), the others are built on every core.
  ///
  /// - Complexity: O(*n*) in the folded text, plus sorting the distinct words, per column
  ///   not yet built.
  /// With a `sink`, the bytes are handed to it as they are made, and none are returned.
  package func archivedNearSpellings(sink: ArchiveSink? = nil) -> [UInt8] {
    let searchable = textFields.indices.filter { textFields[$0].isSearchable }
    let keep = orderedLiveSlots()
    let isCanonical = keep.count == slotCount && keep.elementsEqual(0..<slotCount)
    let dictionaries = Parallel.map(parts: searchable.count) { part in
      let column = searchable[part]
      if isCanonical {
        if let built = typoDictionaries.existing(column: column), built.slotCount == slotCount {
          return built
        }
        return TypoDictionary(column: columns[column])
      }
      return TypoDictionary(column: columns[column].compacted(keeping: keep))
    }
    return ArchiveWriter.archive(
      magic: NearSpellingArchive.magic, version: NearSpellingArchive.formatVersion,
      schema: schema, sink: sink
    ) { writer in
      writer.append(UInt64(keep.count))
      writer.append(UInt64(searchable.count))
      for (column, dictionary) in zip(searchable, dictionaries) {
        writer.append(UInt32(column))
        dictionary.write(to: &writer)
      }
    }
  }

  /// Reads the near-spelling dictionaries through `load` — which hands its `read` the bytes
  /// `archivedNearSpellings()` wrote alongside the archive this index was read from, in place,
  /// or does not call it — the first time a search needs them, instead of building them. Slots
  /// added since are checked one by one, as with built ones.
  ///
  /// - Returns: false, changing nothing, when the slots were renumbered since the index was read
  ///   (the dictionaries would name the wrong items). When `load` has no bytes, or bytes that do
  ///   not read back (damaged, another schema), the dictionaries are built as usual.
  @discardableResult
  package mutating func readNearSpellings(
    whenNeeded load: @escaping @Sendable (_ read: (UnsafeRawBufferPointer) -> Void) -> Void
  ) -> Bool {
    readNearSpellings { decode in
      var dictionaries: [Int: TypoDictionary]?
      load { dictionaries = decode($0, nil, .verify) }
      return dictionaries
    }
  }

  /// As `readNearSpellings(whenNeeded:)`, the dictionaries' arrays *borrowed* from the bytes
  /// `load` returns — a mapped file's, kept alive by the owner it returns with them — instead
  /// of copied. `load` returns nil when there are none; `.verified` when it checked the
  /// checksum itself (a chunk at a time, so that checking does not map every page).
  @discardableResult
  package mutating func readNearSpellings(
    borrowingWhenNeeded load:
      @escaping @Sendable () -> (
        bytes: UnsafeRawBufferPointer, owner: any AnyObject & Sendable,
        checksum: IndexArchive.ChecksumCheck
      )?
  ) -> Bool {
    readNearSpellings { decode in
      load().flatMap { decode($0.bytes, $0.owner, $0.checksum) }
    }
  }

  /// What both doors share: unless the slots were renumbered, the dictionaries are read by
  /// `read` the first time a search needs them, through the decoder it is handed (nil: bytes
  /// that do not read back).
  private mutating func readNearSpellings(
    _ read:
      @escaping @Sendable (
        _ decode: (
          UnsafeRawBufferPointer, (any AnyObject & Sendable)?, IndexArchive.ChecksumCheck
        ) -> [Int: TypoDictionary]?
      ) -> [Int: TypoDictionary]?
  ) -> Bool {
    guard layout == 0 else { return false }
    let (schema, columnCount, slotLimit) = (self.schema, textFields.count, slotCount)
    typoDictionaries = TypoDictionaries {
      read { bytes, owner, checksum in
        try? NearSpellingArchive.dictionaries(
          from: bytes, keptBy: owner, checksum: checksum, schema: schema,
          columnCount: columnCount, slotLimit: slotLimit)
      }
    }
    return true
  }
}
