/**
 * Permission rule strings: `Bash(npm run build)`, `Bash(npm run test:*)`,
 * `Edit(docs/**)`, `Read(~/notes/*.md)`, `Write(out/**)`, a bare tool name, or
 * `Bash=<command>` for one exact command text (no pattern characters).
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { homedir } from "node:os";
import { ReasonixError } from "../errors.ts";
import { analyzeBash, literalWords, type BashAnalysis } from "./bash.ts";

/** Rule families that cover a class of tools rather than one tool name. */
export type RuleFamily = "Bash" | "Edit" | "Write" | "Read" | "WebFetch";

export type BashPattern =
  | { kind: "any" }
  /** Exact: the whole command text, or one part's words. */
  | { kind: "exact"; text: string; words: string[] | null }
  /** `P:*`: P's words, the last of which may be followed by `:suffix`, then any arguments. */
  | { kind: "prefix"; words: string[] }
  /** `*` wildcards over the part's words joined by single spaces. */
  | { kind: "glob"; re: RegExp; literalPrefix: string };

export interface Rule {
  source: string;
  /** "Bash" | "Edit" | "Write" | "Read" or a tool name. */
  name: string;
  /** Raw text between the parentheses, when present. */
  spec?: string;
  bash?: BashPattern;
}

const RULE_RE = /^([A-Za-z_][A-Za-z0-9_.:-]*\*?)(?:\(([\s\S]*)\))?$/;

/**
 * Does a bare rule name cover a tool name? Exact, or for MCP tools a whole
 * server: `mcp__srv__*` and `mcp__srv` both cover every `mcp__srv__<tool>`.
 */
export function ruleNameCovers(rule: string, tool: string): boolean {
  if (rule === tool) return true;
  if (!tool.startsWith("mcp__")) return false;
  if (rule.endsWith("__*")) return tool.startsWith(rule.slice(0, -1));
  return /^mcp__[A-Za-z0-9_-]+$/.test(rule) && !rule.slice(5).includes("__") && tool.startsWith(`${rule}__`);
}

export function parseRule(source: string): Rule {
  // `Bash=<text>`: this exact command text, with no pattern characters.
  const lit = /^Bash=([\s\S]+)$/.exec(source.trim());
  if (lit) {
    const text = lit[1]!.trim();
    return { source: source.trim(), name: "Bash", spec: text, bash: { kind: "exact", text, words: literalWords(text) } };
  }
  const m = RULE_RE.exec(source.trim());
  if (!m) {
    throw new ReasonixError("permissions-rule", `invalid permission rule "${source}"`, {
      hint: "write a tool name, or Tool(pattern), e.g. Bash(npm test) or Edit(docs/**)",
    });
  }
  const name = m[1]!;
  const spec = m[2];
  if (name.endsWith("*") && (!/^mcp__[A-Za-z0-9_-]+__\*$/.test(name) || spec !== undefined)) {
    throw new ReasonixError("permissions-rule", `invalid permission rule "${source}": only an MCP server's tools can be matched with *`, { hint: "write mcp__<server>__* for every tool of one server" });
  }
  const rule: Rule = { source: source.trim(), name, spec };
  if (spec !== undefined && spec.trim() === "") {
    throw new ReasonixError("permissions-rule", `permission rule "${source}" has an empty pattern`, { hint: `write ${name} alone to mean every call` });
  }
  if (name === "Bash" || name === "bash") rule.bash = spec === undefined ? { kind: "any" } : parseBashPattern(spec, source);
  if (name === "WebFetch" && spec !== undefined && !/^domain:[A-Za-z0-9.-]+$/.test(spec.trim())) {
    throw new ReasonixError("permissions-rule", `invalid permission rule "${source}": WebFetch takes domain:<host>`, { hint: "e.g. WebFetch(domain:example.com), which also covers its subdomains" });
  }
  return rule;
}

function parseBashPattern(spec: string, source: string): BashPattern {
  const s = spec.trim();
  if (s === "*") return { kind: "any" };
  if (s.endsWith(":*")) {
    const words = literalWords(s.slice(0, -2));
    if (!words) {
      throw new ReasonixError("permissions-rule", `prefix rule "${source}" must be plain words before ":*"`, {
        hint: "shell syntax ($, quotes that expand, redirections, ;) cannot be part of a prefix",
      });
    }
    return { kind: "prefix", words };
  }
  if (s.includes("*")) {
    const re = new RegExp(`^${s.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*")}$`);
    return { kind: "glob", re, literalPrefix: s.slice(0, s.indexOf("*")).trim() };
  }
  return { kind: "exact", text: s, words: literalWords(s) };
}

// ------------------------------------------------------------------ bash

const eq = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Does a rule cover one literal command (its words)? */
export function bashPatternMatchesArgv(p: BashPattern, argv: readonly string[]): boolean {
  switch (p.kind) {
    case "any": return true;
    case "exact": return p.words !== null && eq(p.words, argv);
    case "prefix": {
      const n = p.words.length;
      if (n === 0) return true;
      if (argv.length < n) return false;
      for (let i = 0; i < n - 1; i++) if (argv[i] !== p.words[i]) return false;
      const last = p.words[n - 1]!;
      return argv[n - 1] === last || argv[n - 1]!.startsWith(`${last}:`);
    }
    case "glob": return p.re.test(argv.join(" "));
  }
}

const WRAPPER_NAMES = new Set(["sudo", "doas", "nohup", "nice", "ionice", "timeout", "stdbuf", "setsid", "chrt", "taskset", "command", "builtin", "exec", "env", "xargs", "unbuffer", "caffeinate", "time"]);

/**
 * Broad matching for deny and ask rules: every part, every command run on a
 * part's behalf, every suffix of a wrapper's words, and recursively the text
 * of substitutions and `-c` strings. Unparseable text falls back to searching
 * for the rule's literal prefix. Over-matching here only costs a prompt.
 */
export function bashPatternHitsAnywhere(p: BashPattern, a: BashAnalysis, depth = 0): boolean {
  if (p.kind === "exact" && p.text === a.text.trim()) return true;
  // `/bin/rm`, `./rm` and `/usr/bin/git` are still rm and git to a deny rule.
  const hits = (argv: readonly string[]) =>
    bashPatternMatchesArgv(p, argv) ||
    (argv.length > 0 && argv[0]!.includes("/") && bashPatternMatchesArgv(p, [argv[0]!.slice(argv[0]!.lastIndexOf("/") + 1), ...argv.slice(1)]));
  for (const c of a.commands) {
    if (hits(c.argv)) return true;
    for (const inner of c.inner) if (hits(inner)) return true;
    if (c.argv.length > 0 && WRAPPER_NAMES.has(c.argv[0]!.slice(c.argv[0]!.lastIndexOf("/") + 1))) {
      for (let i = 1; i < c.argv.length; i++) if (hits(c.argv.slice(i))) return true;
    }
  }
  if (depth < 4) {
    for (const src of a.nestedSources) if (bashPatternHitsAnywhere(p, analyzeBash(src), depth + 1)) return true;
  }
  if (a.nested) {
    const needle = literalNeedle(p);
    if (needle && containsWords(a.text, needle)) return true;
  }
  return false;
}

function literalNeedle(p: BashPattern): string | null {
  switch (p.kind) {
    case "any": return null;
    case "exact": return p.words ? p.words.join(" ") : p.text;
    case "prefix": return p.words.join(" ");
    case "glob": return p.literalPrefix || null;
  }
}

/** `needle` occurs in `hay` starting at a word boundary, after collapsing quotes and blanks. */
function containsWords(hay: string, needle: string): boolean {
  const norm = (s: string) => s.replace(/["'\\]/g, "").replace(/\s+/g, " ");
  const h = norm(hay);
  const n = norm(needle).trim();
  if (!n) return false;
  let at = h.indexOf(n);
  while (at >= 0) {
    if (at === 0 || /[\s;&|(`$={/]/.test(h[at - 1]!)) return true;
    at = h.indexOf(n, at + 1);
  }
  return false;
}

// ------------------------------------------------------------------ paths

export interface PathSubject {
  /** Lexically resolved absolute path (`..` collapsed, links not followed). */
  lexical: string;
  /** Real path (links followed), when known. */
  real?: string;
}

export function expandRulePath(pattern: string, home = process.env.HOME || homedir()): string {
  if (pattern === "~") return home;
  if (pattern.startsWith("~/")) return home + pattern.slice(1);
  return pattern;
}

const globCache = new Map<string, InstanceType<typeof Bun.Glob>>();
const glob = (p: string) => {
  let g = globCache.get(p);
  if (!g) { g = new Bun.Glob(p); globCache.set(p, g); }
  return g;
};

/**
 * Gitignore-like matching: a relative pattern is anchored at the workspace
 * (a pattern without `/` matches at any depth); an absolute or `~/` pattern
 * matches absolute paths. `dir/**` also covers `dir` itself.
 */
export function pathPatternMatches(pattern: string, absPath: string, workspace: string): boolean {
  const pat = expandRulePath(pattern.trim());
  const candidates: string[] = [];
  if (isAbsolute(pat)) {
    candidates.push(pat);
    return matchOne(candidates, absPath);
  }
  const rel = relative(workspace, absPath);
  if (rel.startsWith("..") || isAbsolute(rel)) return false;
  const relPosix = sep === "/" ? rel : rel.split(sep).join("/");
  const p = pat.replace(/^\.\//, "");
  candidates.push(p);
  if (!p.includes("/")) candidates.push(`**/${p}`);
  return matchOne(candidates, relPosix === "" ? "." : relPosix);
}

function matchOne(patterns: string[], path: string): boolean {
  for (const p of patterns) {
    if (glob(p).match(path)) return true;
    if (p.endsWith("/**") && (path === p.slice(0, -3) || glob(p.slice(0, -3)).match(path))) return true;
  }
  return false;
}

export function subjectFor(path: string, workspace: string, real?: string): PathSubject {
  return { lexical: resolve(workspace, expandRulePath(path)), real };
}
