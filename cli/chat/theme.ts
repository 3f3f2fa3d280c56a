// Colours for the terminal chat. Plain SGR codes (no chalk). With NO_COLOR set
// (https://no-color.org) the colours are the identity and only text attributes
// remain (bold, dim, italic, underline, strike, inverse): the interface stays,
// colour goes. TERM=dumb and non-terminals use line mode (line-mode.ts).
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";

import type { Theme, ThemeStyle } from "../../core/protocol/theme.ts";

const sgr = (on: string, off: string) => (s: string) => `\x1b[${on}m${s}\x1b[${off}m`;
const noColour = !!process.env.NO_COLOR;
const hue = (on: string) => (noColour ? (s: string) => s : sgr(on, "39"));

/** Each style's accent on a dark and on a light background (SGR foreground codes). */
const ACCENTS: Record<ThemeStyle, { dark: string; light: string }> = {
  default: { dark: "36", light: "34" },
  ocean: { dark: "94", light: "38;5;25" },
  forest: { dark: "32", light: "38;5;28" },
  rose: { dark: "95", light: "35" },
  amber: { dark: "33", light: "38;5;130" },
};

/** Light or dark from the terminal's COLORFGBG ("fg;bg", set by rxvt, Konsole, iTerm2…); dark when it is not set. */
export function terminalBackground(env: NodeJS.ProcessEnv = process.env): "light" | "dark" {
  const bg = Number(env.COLORFGBG?.split(";").at(-1));
  return Number.isInteger(bg) && (bg === 7 || bg === 15) ? "light" : "dark";
}

let accentCode = ACCENTS.default.dark;
let applied: Theme & { background: "light" | "dark" } = { mode: "auto", style: "default", background: "dark" };

/** Use `theme` from the next frame on (auto: the terminal's background). */
export function applyTheme(theme: Theme, env: NodeJS.ProcessEnv = process.env): void {
  const background = theme.mode === "auto" ? terminalBackground(env) : theme.mode;
  accentCode = ACCENTS[theme.style][background];
  applied = { ...theme, background };
}

export const currentTheme = () => applied;

const accent = (s: string) => (noColour ? s : `\x1b[${accentCode}m${s}\x1b[39m`);

export const c = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strike: sgr("9", "29"),
  inverse: sgr("7", "27"),
  red: hue("31"),
  green: hue("32"),
  yellow: hue("33"),
  blue: hue("34"),
  magenta: hue("35"),
  /** The theme's accent (cyan in the default style on a dark background): prompts, headings, the selection. */
  cyan: accent,
  gray: hue("90"),
};

const KEYWORDS = new Set(
  "const let var function return if else for while do switch case break continue class extends new import export from default async await try catch finally throw typeof instanceof in of interface type enum def elif lambda pass yield with as fn pub impl struct use mod match package func go defer chan select nil true false null undefined None True False self this".split(" "),
);

/** Tiny one-pass highlighter: strings, comments, numbers and common keywords. */
export function highlight(code: string, _lang?: string): string[] {
  return code.split("\n").map((line) => {
    if (/^\s*(\/\/|#(?!!)|--)/.test(line)) return c.gray(line);
    return line.replace(/("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)|\b(\d+(?:\.\d+)?)\b|\b([A-Za-z_]\w*)\b/g, (m, str, num, word) => {
      if (str) return c.green(m);
      if (num) return c.magenta(m);
      if (word && KEYWORDS.has(word)) return c.blue(m);
      return m;
    });
  });
}

export const markdownTheme: MarkdownTheme = {
  // pi-tui makes headings bold itself.
  heading: (s) => c.cyan(s),
  link: (s) => c.underline(c.blue(s)),
  linkUrl: (s) => c.gray(s),
  code: (s) => c.yellow(s),
  codeBlock: (s) => s,
  codeBlockBorder: (s) => c.gray(s),
  quote: (s) => c.italic(s),
  quoteBorder: (s) => c.gray(s),
  hr: (s) => c.gray(s),
  listBullet: (s) => c.cyan(s),
  bold: (s) => c.bold(s),
  italic: (s) => c.italic(s),
  strikethrough: (s) => c.strike(s),
  underline: (s) => c.underline(s),
  highlightCode: highlight,
};

export const selectTheme: SelectListTheme = {
  selectedPrefix: (s) => c.cyan(s),
  selectedText: (s) => c.bold(c.cyan(s)),
  description: (s) => c.gray(s),
  scrollInfo: (s) => c.gray(s),
  noMatch: (s) => c.gray(s),
};

// Borders stay uncoloured here: the app colours a whole border line once (fewer bytes).
export const editorTheme: EditorTheme = { borderColor: (s) => s, selectList: selectTheme };
