/// How many terminal columns text occupies: a compact approximation of what terminals do.
///
/// Width is measured per grapheme cluster (a Swift `Character`), never per scalar, so a cluster
/// is never split and an emoji built from several scalars counts once. The rules:
///
/// - **2 columns**: a cluster containing a scalar in the East Asian wide or fullwidth blocks
///   (Hangul Jamo leading consonants, CJK radicals and symbols, kana, CJK ideographs and their
///   extensions, Yi, Hangul syllables, CJK compatibility ideographs, vertical and small forms,
///   fullwidth forms), a scalar with emoji presentation by default, or an emoji-capable scalar
///   followed by the emoji variation selector U+FE0F.
/// - **0 columns**: a cluster made only of combining marks (Mn, Me), format characters (Cf) such
///   as zero-width joiners, variation selectors, or control characters.
/// - **1 column**: everything else.
/// - **2 more columns** for each emoji modifier (the skin tones U+1F3FB–U+1F3FF) that does not
///   follow an emoji modifier base: it joins the cluster before it, but terminals draw it after
///   that cluster as a colour swatch of its own. So `a` + U+1F3FD is 3 columns, `日` + U+1F3FD
///   is 4 and a lone U+1F3FD is 2, while `👍🏽` stays 2. This is the only way a cluster is wider
///   than 2 columns.
///
/// Terminals differ on ambiguous-width characters (`⚠`, `…`, box drawing); this type counts
/// them as 1, which is what most terminals in Western locales do.
enum DisplayWidth {
  /// The number of columns one grapheme cluster occupies: 0, 1 or 2, plus 2 for each emoji
  /// modifier that follows no emoji modifier base.
  ///
  /// - Parameter character: The grapheme cluster to measure.
  /// - Returns: 0, 1 or 2, or more when the cluster holds emoji modifiers drawn on their own.
  static func columns(of character: Character) -> Int {
    var widest = 0
    var swatches = 0
    var previousIsEmoji = false
    var previousIsModifierBase = false
    for scalar in character.unicodeScalars {
      let properties = scalar.properties
      if properties.isEmojiModifier && !previousIsModifierBase {
        // Nothing to tone: the terminal draws the modifier after the rest, as a colour swatch.
        swatches += 2
        previousIsEmoji = false
        continue
      }
      if isWide(scalar) || properties.isEmojiPresentation
        || (scalar.value == 0xFE0F && previousIsEmoji)
      {
        widest = 2
      } else if !isZeroWidth(scalar) {
        widest = max(widest, 1)
      }
      previousIsEmoji = properties.isEmoji
      // A variation selector between a base and its modifier (`✌\u{FE0F}🏽`) keeps them together.
      if scalar.value != 0xFE0F { previousIsModifierBase = properties.isEmojiModifierBase }
    }
    return widest + swatches
  }

  /// The number of columns a string occupies: the sum over its grapheme clusters.
  ///
  /// Escape sequences are not recognised: measure text before adding colour to it.
  ///
  /// - Parameter text: The text to measure.
  /// - Returns: The total width in columns.
  /// - Complexity: O(*n*) in the length of `text`.
  static func columns(of text: some StringProtocol) -> Int {
    var total = 0
    for character in text { total += columns(of: character) }
    return total
  }

  private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control:
      return true
    default:
      // Hangul Jamo vowels and trailing consonants join the leading consonant before them.
      return (0x1160...0x11FF).contains(scalar.value)
    }
  }

  private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x1100...0x115F,  // Hangul Jamo leading consonants
      0x2E80...0x303E,  // CJK radicals, Kangxi radicals, CJK symbols and punctuation
      0x3041...0x33FF,  // kana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
      0x3400...0x4DBF,  // CJK ideographs extension A
      0x4E00...0x9FFF,  // CJK unified ideographs
      0xA000...0xA4CF,  // Yi syllables and radicals
      0xA960...0xA97F,  // Hangul Jamo extended A
      0xAC00...0xD7A3,  // Hangul syllables
      0xF900...0xFAFF,  // CJK compatibility ideographs
      0xFE10...0xFE19,  // vertical forms
      0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
      0xFF00...0xFF60,  // fullwidth forms
      0xFFE0...0xFFE6,  // fullwidth signs
      0x1B000...0x1B2FF,  // kana supplement and extensions
      0x20000...0x2FFFD,  // CJK ideographs extensions B and later
      0x30000...0x3FFFD:  // CJK ideographs extension G and later
      return true
    default:
      return false
    }
  }
}
