// Counting words of visible text as it streams out of the parser, one text chunk at a time.
//
// A word is a run of non-whitespace that contains at least one letter or digit, so "Home | About"
// is two words, not three. Runs continue across chunks (text split around an entity, or an
// inline tag like <b>), and the analyzer calls `boundary()` at block-level tags, which render
// on their own line ("<li>one</li><li>two</li>" is two words).
//
// CJK: Chinese and Japanese put no spaces between words, so each Han ideograph, hiragana or
// katakana character counts as one word (the convention of word processors). Korean uses
// spaces and is counted by runs. Simplification: Thai, Lao, Khmer and Myanmar, which are also
// written without spaces, count one word per whitespace-separated run.
// Non-ASCII letters are recognised by range, not by Unicode property (that would cost a regex
// per character): Latin-1 symbols, general punctuation, arrows, math and box-drawing symbols
// and CJK punctuation do not make a word; any other non-space character does.

export class WordCounter {
  count = 0;
  /** The current run already contains a letter and was counted. */
  private counted = false;

  boundary(): void {
    this.counted = false;
  }

  add(text: string): void {
    let counted = this.counted;
    let count = this.count;
    for (let i = 0, n = text.length; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        if (c <= 0x20) {
          if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) counted = false;
        } else if (!counted && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a))) {
          count++;
          counted = true;
        }
        continue;
      }
      if (isSpace(c)) {
        counted = false;
      } else if (isIdeographic(c)) {
        count++;
        counted = false;
      } else if (!counted && !isSymbol(c)) {
        count++;
        counted = true;
      }
    }
    this.counted = counted;
    this.count = count;
  }
}

function isSpace(c: number): boolean {
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

function isIdeographic(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xf900 && c <= 0xfaff) // CJK compatibility ideographs
  );
}

function isSymbol(c: number): boolean {
  return (
    (c >= 0x80 && c <= 0xbf && c !== 0xaa && c !== 0xb5 && c !== 0xba) ||
    c === 0xd7 || c === 0xf7 ||
    (c >= 0x2000 && c <= 0x2bff) ||
    (c >= 0x3000 && c <= 0x303f) ||
    (c >= 0xfe30 && c <= 0xfe4f) || // CJK compatibility forms
    (c >= 0xff00 && c <= 0xff0f) // fullwidth punctuation
  );
}
