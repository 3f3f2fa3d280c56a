/**
 * Gitignore pattern matching, enough to make the built-in grep fallback and
 * glob skip what ripgrep skips: per-directory `.gitignore` (inside a git
 * repository only, as ripgrep does), `.ignore`, `.rgignore`, and
 * `.git/info/exclude`. Later lines win; `!` re-includes; a trailing `/`
 * matches directories only; a pattern with an inner `/` is anchored to its
 * file's directory, one without matches a name at any depth.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

interface IgnoreRule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  /** Directory (relative to the walk root, "" = root) the rule file lives in. */
  base: string;
  /** For a rule file above the walk root: the walk root relative to that file's directory. */
  up: string;
}

/** Translate one gitignore glob (already stripped of `!`, leading and trailing `/`) to a regex body. */
function globToRegex(glob: string): string {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const before = i === 0 || glob[i - 1] === "/";
        const after = i + 2 === glob.length || glob[i + 2] === "/";
        if (before && after) {
          if (i + 2 === glob.length) re += ".*"; // trailing `/**`: everything inside
          else { re += "(?:.*/)?"; i++; } // `**/`: zero or more directories
          i++;
          continue;
        }
      }
      re += "[^/]*";
      continue;
    }
    if (c === "?") { re += "[^/]"; continue; }
    if (c === "\\" && i + 1 < glob.length) { re += glob[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"); continue; }
    if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end > 0) {
        let cls = glob.slice(i + 1, end);
        if (cls.startsWith("!")) cls = `^${cls.slice(1)}`;
        re += `[${cls.replace(/\\/g, "\\\\")}]`;
        i = end;
        continue;
      }
    }
    re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return re;
}

export function parseIgnoreFile(text: string, base: string, up = ""): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    // Trailing spaces are ignored unless escaped.
    line = line.replace(/(?<!\\)\s+$/, "");
    if (line === "") continue;
    let negate = false;
    if (line.startsWith("!")) { negate = true; line = line.slice(1); }
    else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith("/")) { dirOnly = true; line = line.replace(/\/+$/, ""); }
    if (line === "") continue;
    const anchored = line.includes("/");
    line = line.replace(/^\//, "");
    const body = globToRegex(line);
    rules.push({ re: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), negate, dirOnly, base, up });
  }
  return rules;
}

export type OverrideVerdict = "whitelist" | "ignore" | null;

/**
 * ripgrep's `-g GLOB` (gitignore syntax, relative to the search root): a
 * match whitelists the entry past hidden-file and ignore-file rules; `!GLOB`
 * ignores it. With a whitelist glob, files that match nothing are dropped.
 */
export function compileOverride(glob: string): { test(rel: string, isDir: boolean): OverrideVerdict; hasWhitelist: boolean } {
  const rules = parseIgnoreFile(glob, "");
  return {
    hasWhitelist: rules.some((r) => !r.negate),
    test(rel, isDir) {
      let v: OverrideVerdict = null;
      for (const r of rules) {
        if (r.dirOnly && !isDir) continue;
        if (r.re.test(rel)) v = r.negate ? "ignore" : "whitelist";
      }
      return v;
    },
  };
}

/** The ignore rules in force for one directory (its own plus every ancestor's within the walk). */
export class IgnoreStack {
  private constructor(private readonly rules: IgnoreRule[], private readonly gitAware: boolean) {}

  /**
   * Rules for the walk root: repo-level excludes and the ignore files of the
   * root's ancestors (ripgrep honours parent directories' ignore files too;
   * `.gitignore` only up to the repository top).
   */
  static forRoot(rootAbs: string, opts: { gitignore: boolean }): IgnoreStack {
    const top = opts.gitignore ? gitTop(rootAbs) : null;
    const gitAware = top !== null;
    const rules: IgnoreRule[] = [];
    if (top) {
      const exclude = join(top, ".git", "info", "exclude");
      if (existsSync(exclude)) rules.push(...parseIgnoreFile(safeRead(exclude), "", relative(top, rootAbs)));
    }
    const ancestors: string[] = [];
    for (let d = dirname(rootAbs); ; d = dirname(d)) {
      ancestors.unshift(d);
      if (dirname(d) === d) break;
    }
    for (const dir of ancestors) {
      const inRepo = top !== null && (dir === top || dir.startsWith(`${top}/`));
      for (const f of [...(inRepo ? [".gitignore"] : []), ".ignore", ".rgignore"]) {
        const p = join(dir, f);
        if (existsSync(p)) rules.push(...parseIgnoreFile(safeRead(p), "", relative(dir, rootAbs)));
      }
    }
    return new IgnoreStack(rules, gitAware).descend(rootAbs, "");
  }

  /** Rules for a subdirectory `rel` (relative to the walk root) at `abs`. */
  descend(abs: string, rel: string): IgnoreStack {
    const files = [...(this.gitAware ? [".gitignore"] : []), ".ignore", ".rgignore"];
    const added: IgnoreRule[] = [];
    for (const f of files) {
      const p = join(abs, f);
      if (existsSync(p)) added.push(...parseIgnoreFile(safeRead(p), rel));
    }
    return added.length === 0 ? this : new IgnoreStack([...this.rules, ...added], this.gitAware);
  }

  /** Is the entry at `rel` (relative to the walk root) ignored? */
  ignored(rel: string, isDir: boolean): boolean {
    let out = false;
    for (const r of this.rules) {
      if (r.dirOnly && !isDir) continue;
      let sub = r.base === "" ? rel : rel.startsWith(`${r.base}/`) ? rel.slice(r.base.length + 1) : null;
      if (sub === null) continue;
      if (r.up !== "") sub = `${r.up}/${sub}`;
      if (r.re.test(sub)) out = !r.negate;
    }
    return out;
  }
}

function safeRead(p: string): string {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return "";
  }
}

function gitTop(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (dirname(d) === d) return null;
  }
}
