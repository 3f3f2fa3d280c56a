/**
 * The saved colour theme (core/protocol/theme.ts) in the user config:
 * `[ui] theme` (auto, light, dark) and `[ui] theme_style` (an accent palette).
 * The terminal chat and the web UI read this one setting; the web UI's older
 * `[web] theme` is still read when `[ui] theme` is unset. REASONIX_THEME and
 * REASONIX_THEME_STYLE override it for one run without saving anything.
 */
import { homePaths } from "../home.ts";
import { DEFAULT_THEME, isThemeMode, isThemeStyle, type Theme, type ThemeMode, type ThemeStyle } from "../protocol/theme.ts";
import { setConfigValue } from "./edit.ts";
import { readConfigFile, type ConfigTable } from "./load.ts";

const table = (v: unknown): ConfigTable => (v && typeof v === "object" && !Array.isArray(v) ? (v as ConfigTable) : {});

/** The theme saved in `home`'s config.toml (the defaults when unset or unreadable). */
export function savedTheme(home: string): Theme {
  let data: ConfigTable = {};
  try {
    data = readConfigFile(homePaths(home).config, "user", [])?.data ?? {};
  } catch {
    // An unreadable config is reported where the config is loaded; the colours fall back.
  }
  const ui = table(data.ui);
  const mode = isThemeMode(ui.theme) ? ui.theme : isThemeMode(table(data.web).theme) ? (table(data.web).theme as ThemeMode) : DEFAULT_THEME.mode;
  const style = isThemeStyle(ui.theme_style) ? ui.theme_style : DEFAULT_THEME.style;
  return { mode, style };
}

export interface EffectiveTheme extends Theme {
  /** The parts set by REASONIX_THEME / REASONIX_THEME_STYLE for this run. */
  fromEnv: { mode?: true; style?: true };
  /** Values of those variables that name no mode or style (ignored). */
  problems: string[];
}

/** The saved theme with this run's REASONIX_THEME / REASONIX_THEME_STYLE applied. */
export function effectiveTheme(home: string, env: NodeJS.ProcessEnv = process.env): EffectiveTheme {
  const t: EffectiveTheme = { ...savedTheme(home), fromEnv: {}, problems: [] };
  const mode = env.REASONIX_THEME?.trim().toLowerCase();
  const style = env.REASONIX_THEME_STYLE?.trim().toLowerCase();
  if (mode) {
    if (isThemeMode(mode)) [t.mode, t.fromEnv.mode] = [mode, true];
    else t.problems.push(`REASONIX_THEME="${mode}" is not one of auto, light, dark (ignored)`);
  }
  if (style) {
    if (isThemeStyle(style)) [t.style, t.fromEnv.style] = [style, true];
    else t.problems.push(`REASONIX_THEME_STYLE="${style}" is no theme style (ignored)`);
  }
  return t;
}

/** Save a mode or a style in `home`'s config.toml, as `reasonix config set ui.theme …` does. */
export function saveTheme(home: string, part: { mode: ThemeMode } | { style: ThemeStyle }): void {
  const path = homePaths(home).config;
  if ("mode" in part) setConfigValue(path, "ui.theme", part.mode);
  else setConfigValue(path, "ui.theme_style", part.style);
}
