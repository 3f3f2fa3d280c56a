// The settings panel's data (GET /api/settings) and its writes. Each write
// answers with the fresh settings, so the panel redraws from what the server
// now reads back from the files, never from what the form sent.
import { isThemeStyle, THEME_MODES, THEME_STYLES } from "../../../../../protocol/theme.ts";
import { api, HttpError, type Json } from "../../api.ts";
import { changed, loadModels, state } from "../../store.ts";

export interface ProviderRow { name: string; kind: string; baseUrl: string; models: string[]; keyEnv?: string; hasKey: boolean; isDefault: boolean; effort?: string }
export interface RuleRow { rule: string; kind: "allow" | "ask" | "deny"; scope: "user" | "project"; file: string; inEffect: boolean }
export interface McpRow { name: string; type: string; scope: string; file: string; target: string; enabled: boolean; status: string; error?: string; tools: number; editable: boolean; remote: boolean; signIn?: { state: string; message?: string } }
export interface Settings {
  userConfig: string; projectConfig: string; dotenv: string; trusted: boolean; secretsAllowed: boolean;
  providers: ProviderRow[]; presets: { id: string; label: string; needsKey: boolean; hasModel: boolean; custom: boolean }[]; rules: RuleRow[]; mode: string; modeFile: string; theme: string; themeStyle: string; mcp: McpRow[]; mcpProblems: string[]; pending?: boolean;
}

/** Hooks the lead connects to the MCP registry dialogs (absent: the buttons are not shown). */
export interface McpExtras { onBrowseRegistry?: () => void; onImport?: () => void }

export const panel = {
  open: false,
  data: null as Settings | null,
  error: "",
  /** What the last write said (shown in the panel's status line). */
  note: "",
  /** The button that opened the panel (focus returns there). */
  opener: null as HTMLElement | null,
};

export async function loadSettings(): Promise<void> {
  try {
    panel.data = await api<Settings>("GET", "/api/settings");
    panel.error = "";
  } catch (e) {
    panel.error = (e as Error).message;
  }
  changed();
}

export function openSettings(from?: HTMLElement | null): void {
  panel.open = true;
  panel.opener = from ?? (document.activeElement as HTMLElement | null);
  panel.note = "";
  changed();
  void loadSettings();
}

export function closeSettings(): void {
  panel.open = false;
  changed();
  panel.opener?.focus();
}

/** The error of a refused write, with the form field it concerns. */
export interface WriteError { message: string; field?: string }

/**
 * POST a change; on success the panel takes the settings the server sends
 * back and `note` says what happened. Returns the answer, or the error.
 */
export async function write(path: string, body: Json, note: string): Promise<Json | WriteError> {
  try {
    const r = await api<Json>("POST", path, body);
    if (r.settings) panel.data = r.settings as Settings;
    const later = r.engine && r.engine.applied === false && !r.engine.error ? " It applies to new sessions once the running turn ends." : "";
    panel.note = `${note}${later}`;
    state.announce = panel.note;
    changed();
    if (r.engine) void loadModels();
    return r;
  } catch (e) {
    return { message: (e as Error).message, field: e instanceof HttpError ? e.field : undefined };
  }
}

export const failed = (r: Json | WriteError): r is WriteError => typeof (r as WriteError).message === "string" && !("settings" in r) && !("ok" in r);

export const THEMES = THEME_MODES;
export { THEME_STYLES };

const prefersDark = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : undefined;
let chosen = "auto";

/**
 * Show the page in THEME at once: data-theme on <html> picks the palette
 * (base.css); "auto" follows the browser's preference, also when it changes.
 * STYLE (an accent palette, core/protocol/theme.ts) sets data-style; absent,
 * the style stays. Both are remembered in this browser too, so the next load starts in them.
 */
export function applyTheme(theme: string | undefined, style?: string): void {
  chosen = theme === "light" || theme === "dark" ? theme : "auto";
  const dark = chosen === "dark" || (chosen === "auto" && !!prefersDark?.matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  if (style !== undefined) document.documentElement.dataset.style = isThemeStyle(style) ? style : "default";
  try {
    localStorage.setItem("reasonix.theme", chosen);
    if (style !== undefined) localStorage.setItem("reasonix.themeStyle", document.documentElement.dataset.style!);
  } catch {}
}

prefersDark?.addEventListener("change", () => chosen === "auto" && applyTheme("auto"));
try {
  applyTheme(localStorage.getItem("reasonix.theme") ?? "auto", localStorage.getItem("reasonix.themeStyle") ?? "default");
} catch {
  applyTheme("auto", "default");
}
