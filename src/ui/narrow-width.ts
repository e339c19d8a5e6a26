/**
 * Characters outside printable ASCII that the live view draws (`·`, `—`, `…`, `›`, quotes, the
 * progress bar's blocks): string-width counts each one column (East Asian Width "ambiguous" or
 * "neutral", narrow by default), as test/ui/narrow-width.test.ts checks against it.
 */
const NARROW = new Set([0xb7, 0x2014, 0x2026, 0x203a, 0x201c, 0x201d, 0x2588, 0x2591]);

/**
 * The terminal width of `text` when it is made of printable ASCII, the characters above and SGR
 * escapes (colour, bold: no width), which is what the live view's frames are made of; -1 for
 * anything else (a control character, another escape, a wide or combining character), which
 * string-width itself must measure. The view's bundle answers ink's width questions with this
 * first: string-width's start-up (two Intl.Segmenters and Unicode-property expressions, in each
 * of the two copies ink brings) and its per-grapheme work were a sixth of the view's CPU.
 */
export function narrowWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      width++;
    } else if (c === 0x1b) {
      // ESC [ digits and semicolons m: a Select Graphic Rendition sequence.
      if (text.charCodeAt(i + 1) !== 0x5b) return -1;
      let j = i + 2;
      for (let d = text.charCodeAt(j); (d >= 0x30 && d <= 0x39) || d === 0x3b; ) {
        d = text.charCodeAt(++j);
      }
      if (text.charCodeAt(j) !== 0x6d) return -1;
      i = j;
    } else if (NARROW.has(c)) {
      width++;
    } else {
      return -1;
    }
  }
  return width;
}
