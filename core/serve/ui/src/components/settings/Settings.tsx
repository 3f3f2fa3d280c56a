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

/** Also applies the saved theme as soon as the server's status is known. */
export function SettingsDialog(extras: McpExtras) {
  const saved = state.status?.theme as string | undefined;
  const theme = panel.data?.theme ?? saved;
  useEffect(() => {
    if (theme) applyTheme(theme);
  }, [theme]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (panel.open) heading.current?.focus();
  }, [panel.open]);
  if (!panel.open) return null;
  const d = panel.data;
  return (
    <div class="dialog-backdrop settings-backdrop" onKeyDown={(e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        closeSettings();
      }
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
