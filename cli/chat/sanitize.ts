// Text from the model, tools and files reaches the terminal only through
// here: control characters could otherwise move the cursor, clear the
// screen, set the clipboard (OSC 52) or retitle the window. Tabs become
// spaces so every character has a known width.

// C0 controls but \n, DEL, and the C1 range (U+0080–U+009F: 8-bit CSI/OSC on some terminals).
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const HAS_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

export const cleanText = (s: string): string => (HAS_CONTROL.test(s) ? s.replace(/\t/g, "    ").replace(CONTROLS, "") : s);

/** A copy of `v` with every string cleaned (events, tool inputs). */
export function scrub<T>(v: T): T {
  if (typeof v === "string") return cleanText(v) as T;
  if (Array.isArray(v)) return v.map(scrub) as T;
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = scrub(x);
    return out as T;
  }
  return v;
}
