// Find the line of a dotted key in TOML text, for warnings that point at the
// setting a person has to look at. smol-toml keeps no positions, so this
// reads the text itself: table headers, dotted keys and inline tables.

const headerRe = /^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$/;
const keyRe = /^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/;

/** Split a TOML key path (`a."b.c".d`) into its parts. */
export function splitKey(text: string): string[] {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) && m[0] !== "") parts.push(m[1] ?? m[2] ?? m[3] ?? "");
  return parts;
}

/**
 * The 1-based line where `dotted` (e.g. "permissions.mode", "providers") is
 * set in `text`: the assignment itself, or the header of the table that holds
 * it, or the line of an inline table that contains it. 0 when not found.
 */
export function lineOfKey(text: string, dotted: string): number {
  const want = dotted.split(".");
  const lines = text.split("\n");
  let table: string[] = [];
  let best = 0;
  let bestLen = 0;
  const consider = (path: string[], line: number) => {
    // A full match wins; otherwise remember the longest prefix seen first.
    const n = Math.min(path.length, want.length);
    let same = 0;
    while (same < n && path[same] === want[same]) same++;
    if (same === 0) return false;
    if (same === want.length && path.length >= want.length) {
      best = line;
      bestLen = Infinity;
      return true;
    }
    if (same === path.length && same > bestLen) {
      best = line;
      bestLen = same;
    }
    return false;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const h = headerRe.exec(l);
    if (h) {
      table = splitKey(h[1]!);
      if (consider(table, i + 1)) return best;
      continue;
    }
    const k = keyRe.exec(l);
    if (k && consider([...table, ...splitKey(k[1]!)], i + 1)) return best;
  }
  return best;
}
