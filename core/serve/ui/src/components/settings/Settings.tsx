// The settings panel: a dialog over the app, opened from the header. Each
// section writes through the serve API (core/serve/routes/settings.ts), which
// uses the CLI's own config editors; the panel redraws from what they read back.
import { useEffect, useRef } from "preact/hooks";
import { state } from "../../store.ts";
import { applyTheme, closeSettings, panel, type McpExtras } from "./model.ts";
import { Defaults, Theme } from "./Defaults.tsx";
import { McpServers } from "./Mcp.tsx";
import { Providers } from "./Providers.tsx";
import { Rules } from "./Rules.tsx";

/** Tab and Shift+Tab stay inside the dialog (it is modal): past the last control back to the first, and the other way. */
function trapTab(e: KeyboardEvent): void {
  const box = document.getElementById("settings");
  if (!box) return;
  const all = [...box.querySelectorAll<HTMLElement>("button, input, select, textarea, a[href], [tabindex]")].filter((el) => !el.hasAttribute("disabled") && el.tabIndex >= 0 && el.offsetParent !== null);
  const first = all[0];
  const last = all.at(-1);
  if (!first || !last) return;
  if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  } else if (e.shiftKey && (document.activeElement === first || !box.contains(document.activeElement))) {
    e.preventDefault();
    last.focus();
  }
}

/** Also applies the saved theme as soon as the server's status is known. */
export function SettingsDialog(extras: McpExtras) {
  const saved = state.status?.theme as string | undefined;
  const theme = panel.data?.theme ?? saved;
  const style = panel.data?.themeStyle ?? (state.status?.themeStyle as string | undefined);
  useEffect(() => {
    if (theme) applyTheme(theme, style);
  }, [theme, style]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!panel.open) return;
    heading.current?.focus();
    // Escape closes the panel wherever the focus is (a re-render elsewhere can move it out of the
    // dialog); captured first, so the app's own Escape (which cancels a running turn) never sees it.
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || !panel.open) return;
      e.preventDefault();
      e.stopPropagation();
      closeSettings();
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, [panel.open]);
  if (!panel.open) return null;
  const d = panel.data;
  return (
    <div class="dialog-backdrop settings-backdrop" onKeyDown={(e) => {
      if (e.key === "Tab") trapTab(e);
    }}>
      <div role="dialog" aria-modal="true" aria-labelledby="settings-h" id="settings" class="settings card">
        <div class="settings-head">
          <h2 id="settings-h" tabIndex={-1} ref={heading}>Settings</h2>
          <button type="button" id="settings-close" class="small" onClick={closeSettings}>Close</button>
        </div>
        <p id="settings-note" class="muted small" role="status">{panel.note}</p>
        {panel.error ? <p class="error" role="alert">{panel.error}</p> : null}
        {!d ? <p class="muted">Loading…</p> : (
          <div class="settings-body">
            <Providers d={d} />
            <Defaults d={d} />
            <Rules d={d} />
            <McpServers d={d} extras={extras} />
            <Theme d={d} />
          </div>
        )}
      </div>
    </div>
  );
}
