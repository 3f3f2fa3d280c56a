// Keyboard handling shared by the composer's drop-down lists (@ mentions,
// the / menu): arrows move, Enter or Tab picks, Esc closes.

/** True when the key was for the list (and was handled). */
export function listboxKey(e: KeyboardEvent, count: number, active: number, setActive: (f: (a: number) => number) => void, pick: (i: number) => void, close: () => void): boolean {
  if (!count) return false;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    setActive((a) => (a + (e.key === "ArrowDown" ? 1 : count - 1)) % count);
    return true;
  }
  if (e.key === "Enter" || e.key === "Tab") {
    e.preventDefault();
    pick(active);
    return true;
  }
  if (e.key === "Escape") {
    e.preventDefault();
    e.stopPropagation();
    close();
    return true;
  }
  return false;
}
