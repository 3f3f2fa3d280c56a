/**
 * The colour theme every front end follows: a mode (light, dark, or auto —
 * the terminal's or the browser's own preference) and an accent style. Saved
 * once in the user config (`[ui] theme`, `[ui] theme_style`; core/config/theme.ts)
 * and read by the terminal chat and the web UI alike. Browser-safe.
 */

export const THEME_MODES = ["auto", "light", "dark"] as const;
export type ThemeMode = (typeof THEME_MODES)[number];

/** The named accent palettes, the first the default. */
export const THEME_STYLES = ["default", "ocean", "forest", "rose", "amber"] as const;
export type ThemeStyle = (typeof THEME_STYLES)[number];

export const THEME_STYLE_TEXT: Record<ThemeStyle, string> = {
  default: "cyan in the terminal, blue in the browser",
  ocean: "deep blue",
  forest: "green",
  rose: "magenta",
  amber: "amber",
};

export interface Theme {
  mode: ThemeMode;
  style: ThemeStyle;
}

export const DEFAULT_THEME: Theme = { mode: "auto", style: "default" };

export const isThemeMode = (v: unknown): v is ThemeMode => typeof v === "string" && (THEME_MODES as readonly string[]).includes(v);
export const isThemeStyle = (v: unknown): v is ThemeStyle => typeof v === "string" && (THEME_STYLES as readonly string[]).includes(v);

export type ThemeArg = { show: true } | { mode: ThemeMode } | { style: ThemeStyle } | { error: string };

/** `/theme`'s argument: nothing shows the theme, a mode or a style name sets that part, anything else is an error naming the choices. */
export function parseThemeArg(arg: string): ThemeArg {
  const t = arg.trim().toLowerCase();
  if (!t) return { show: true };
  if (isThemeMode(t)) return { mode: t };
  if (isThemeStyle(t)) return { style: t };
  return { error: `unknown theme "${arg.trim()}": one of ${[...THEME_MODES, ...THEME_STYLES].join(", ")}` };
}
