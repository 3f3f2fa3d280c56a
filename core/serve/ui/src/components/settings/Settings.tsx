// The settings panel: a dialog over the app, opened from the header. Each
// section writes through the serve API (core/serve/routes/settings.ts), which
// uses the CLI's own config editors; the panel redraws from what they read back.
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { state } from "../../store.ts";
import { applyTheme, closeSettings, panel, type McpExtras } from "./model.ts";
import { Defaults, Theme } from "./Defaults.tsx";
import { McpServers } from "./Mcp.tsx";
import { Providers } from "./Providers.tsx";
import { Rules } from "./Rules.tsx";
import { t } from "../../../../../protocol/i18n/index.ts";

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
  // The focus moves in as the dialog is put on the page (not after paint), so the first key lands
  // inside it; Escape closes it wherever the focus is (components/modals.ts).
  useLayoutEffect(() => {
    if (panel.open) heading.current?.focus();
  }, [panel.open]);
  if (!panel.open) return null;
  const d = panel.data;
  return (
    <div class="dialog-backdrop settings-backdrop" onKeyDown={(e) => {
      if (e.key === "Tab") trapTab(e);
    }}>
      <div role="dialog" aria-modal="true" aria-labelledby="settings-h" id="settings" class="settings card">
        <div class="settings-head">
          <h2 id="settings-h" tabIndex={-1} ref={heading}>{t("web.settings")}</h2>
          <button type="button" id="settings-close" class="small" onClick={closeSettings}>{t("web.close")}</button>
        </div>
        <p id="settings-note" class="muted small" role="status">{panel.note}</p>
        {panel.error ? <p class="error" role="alert">{panel.error}</p> : null}
        {!d ? <p class="muted">{t("web.loading")}</p> : (
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
