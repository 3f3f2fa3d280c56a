// Terminal width of the chat's common lines without pi-tui's grapheme
// machinery. visibleWidth() segments any non-ASCII line with Intl.Segmenter
// and tests each grapheme against Unicode-property regexes; the first call
// builds all of that (~5 ms of CPU), and the very first frame (editor borders,
// "starting…") would pay it. Lines made only of printable ASCII, the escape
// sequences visibleWidth() skips, and a few one-column symbols are counted
// here; anything else returns undefined and goes to visibleWidth().
import { visibleWidth } from "@mariozechner/pi-tui";

/** Non-ASCII characters counted as one column, as visibleWidth() counts them: box drawing (U+2500–U+257F), and · … › ‹. */
const ONE_COLUMN = (code: number) => (code >= 0x2500 && code <= 0x257f) || code === 0xb7 || code === 0x2026 || code === 0x203a || code === 0x2039;

/**
 * Index of the last character of the escape sequence at `i`, read as pi-tui's
 * extractAnsiCode reads it: CSI up to the first m G K H J, APC (the cursor
 * marker) up to BEL. -1 for anything else (visibleWidth() decides).
 */
function escapeEnd(s: string, i: number): number {
  const kind = s[i + 1];
  for (let j = i + 2; j < s.length; j++) {
    const ch = s[j]!;
    if (kind === "[" && "mGKHJ".includes(ch)) return j;
    if (kind === "_" && ch === "\x07") return j;
    if (kind !== "[" && kind !== "_") return -1;
    if (ch === "\x1b") return -1;
  }
  return -1;
}

/** The width of `s` when it only holds what this fast path knows, else undefined. */
export function plainWidth(s: string): number | undefined {
  let width = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) width++;
    else if (code === 0x1b) {
      const end = escapeEnd(s, i);
      if (end < 0) return undefined;
      i = end;
    } else if (ONE_COLUMN(code)) width++;
    else return undefined;
  }
  return width;
}

/** visibleWidth(), with the fast path first. */
export const lineWidth = (s: string): number => plainWidth(s) ?? visibleWidth(s);
