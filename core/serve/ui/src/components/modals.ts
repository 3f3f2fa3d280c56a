// Escape closes the top-most open dialog wherever the focus is, from the very
// frame the dialog appears in. One capture listener on the document, installed
// once when the app loads: no dialog depends on an effect having run (effects
// run after paint) or on the focus having moved into it before the first key.
// Captured first, so the app's own Escape (which cancels a running turn) and
// the composer's lists never see a key meant for a dialog.

interface Modal {
  isOpen: () => boolean;
  close: () => void;
}

/** In the order they are drawn: a later one sits above an earlier one. */
const modals: Modal[] = [];

/** Registers a dialog that Escape closes; register in drawing order. */
export function escapeCloses(isOpen: () => boolean, close: () => void): void {
  modals.push({ isOpen, close });
}

/** The top-most open dialog, if any. */
export function topModal(): Modal | undefined {
  return modals.findLast((m) => m.isOpen());
}

export function anyModalOpen(): boolean {
  return !!topModal();
}

if (typeof document !== "undefined") {
  document.addEventListener(
    "keydown",
    (e) => {
      if (e.key !== "Escape" || e.isComposing) return;
      const top = topModal();
      if (!top) return;
      e.preventDefault();
      e.stopPropagation();
      top.close();
    },
    true,
  );
}
