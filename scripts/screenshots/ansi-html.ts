// A terminal screen as HTML: `tmux capture-pane -e -p` output (SGR escapes:
// bold, dim, italic, underline, inverse, 16/256/true colours) → one <pre>
// with styled spans, for Chromium to screenshot. Used by scripts/screenshots.ts.

export interface Palette {
  fg: string;
  bg: string;
  /** The 16 base colours, 0–7 normal and 8–15 bright. */
  base: string[];
}

export const DARK: Palette = {
  fg: "#d4d4d4",
  bg: "#1e1e1e",
  base: ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5", "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"],
};

export const LIGHT: Palette = {
  fg: "#1f1f1f",
  bg: "#ffffff",
  base: ["#000000", "#cd3131", "#00bc00", "#949800", "#0451a5", "#bc05bc", "#0598bc", "#555555", "#666666", "#cd3131", "#14ce14", "#b5ba00", "#0451a5", "#bc05bc", "#0598bc", "#a5a5a5"],
};

/** xterm's 256-colour table: 16 base, the 6×6×6 cube, 24 greys. */
function color256(n: number, p: Palette): string {
  if (n < 16) return p.base[n]!;
  if (n >= 232) {
    const g = 8 + (n - 232) * 10;
    return `rgb(${g},${g},${g})`;
  }
  const c = n - 16;
  const v = (x: number) => (x ? 55 + x * 40 : 0);
  return `rgb(${v(Math.floor(c / 36))},${v(Math.floor(c / 6) % 6)},${v(c % 6)})`;
}

interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

const escapeHtml = (s: string) => s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));

function sgr(params: number[], st: Style, p: Palette): Style {
  const s = { ...st };
  if (!params.length) params = [0];
  for (let i = 0; i < params.length; i++) {
    const n = params[i]!;
    if (n === 0) for (const k of Object.keys(s)) delete s[k as keyof Style];
    else if (n === 1) s.bold = true;
    else if (n === 2) s.dim = true;
    else if (n === 3) s.italic = true;
    else if (n === 4) s.underline = true;
    else if (n === 7) s.inverse = true;
    else if (n === 22) s.bold = s.dim = false;
    else if (n === 23) s.italic = false;
    else if (n === 24) s.underline = false;
    else if (n === 27) s.inverse = false;
    else if (n >= 30 && n <= 37) s.fg = p.base[n - 30];
    else if (n >= 90 && n <= 97) s.fg = p.base[n - 90 + 8];
    else if (n >= 40 && n <= 47) s.bg = p.base[n - 40];
    else if (n >= 100 && n <= 107) s.bg = p.base[n - 100 + 8];
    else if (n === 39) delete s.fg;
    else if (n === 49) delete s.bg;
    else if ((n === 38 || n === 48) && params[i + 1] === 5) {
      s[n === 38 ? "fg" : "bg"] = color256(params[i + 2] ?? 0, p);
      i += 2;
    } else if ((n === 38 || n === 48) && params[i + 1] === 2) {
      s[n === 38 ? "fg" : "bg"] = `rgb(${params[i + 2] ?? 0},${params[i + 3] ?? 0},${params[i + 4] ?? 0})`;
      i += 4;
    }
  }
  return s;
}

function css(s: Style, p: Palette): string {
  let fg = s.fg;
  let bg = s.bg;
  if (s.inverse) [fg, bg] = [bg ?? p.bg, fg ?? p.fg];
  const out: string[] = [];
  if (fg) out.push(`color:${fg}`);
  if (bg) out.push(`background:${bg}`);
  if (s.bold) out.push("font-weight:700");
  if (s.dim) out.push("opacity:.6");
  if (s.italic) out.push("font-style:italic");
  if (s.underline) out.push("text-decoration:underline");
  return out.join(";");
}

/** The screen's text with escapes as styled spans: a whole HTML page, `cols`×`rows` cells. */
export function ansiToHtml(screen: string, cols: number, rows: number, p: Palette): string {
  let st: Style = {};
  let html = "";
  // Only SGR matters in a captured screen; other CSI sequences are dropped.
  const re = /\x1b\[([0-9;:]*)([A-Za-z])|([^\x1b]+)|\x1b[^[]?/g;
  for (const m of screen.replace(/\n$/, "").matchAll(re)) {
    if (m[3] !== undefined) {
      const style = css(st, p);
      html += style ? `<span style="${style}">${escapeHtml(m[3])}</span>` : escapeHtml(m[3]);
    } else if (m[2] === "m") st = sgr((m[1] ?? "").split(/[;:]/).filter((x) => x !== "").map(Number), st, p);
  }
  const font = `"DejaVu Sans Mono", "Liberation Mono", monospace`;
  return `<!doctype html><meta charset="utf-8"><style>html,body{margin:0;background:${p.bg}}pre{margin:0;padding:8px;color:${p.fg};background:${p.bg};font:14px/1.25 ${font};width:${cols}ch;height:${rows * 1.25}em;white-space:pre;overflow:hidden}</style><pre>${html}</pre>`;
}
