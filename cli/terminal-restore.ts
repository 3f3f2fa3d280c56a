// What must happen before an error that reached the top level is printed: a
// front end that took the terminal over (the full-screen chat) registers how
// to give it back, and reportError (output.ts) runs that first, so the error
// and the crash-report notice land below the chat on a terminal in its usual
// state (raw mode, bracketed paste and keyboard modes off).

const held = new Set<() => void>();

/**
 * The terminal is taken until GIVEBACK has run: by reportError, or by the
 * returned function (the front end's own way out). It runs once either way.
 */
export function holdTerminal(giveBack: () => void): () => void {
  held.add(giveBack);
  return () => {
    if (held.delete(giveBack)) giveBack();
  };
}

/** Give the terminal back now (each holder once). Never throws. */
export function restoreTerminal(): void {
  for (const giveBack of [...held]) {
    held.delete(giveBack);
    try { giveBack(); } catch { /* the error being reported matters more */ }
  }
}
