/**
 * The tokenizer of bash analysis (core/permissions/bash.ts): words with what
 * they contain (quotes, expansions, substitutions, globs), operators and
 * redirections (here-documents read in place). Syntax outside the recognised
 * subset throws Unparseable.
 */

export const F_QUOTED = 1;
export const F_EXPANSION = 2;
export const F_SUBST = 4;
export const F_GLOB = 8;
export const F_TILDE = 16;
export const F_COMPLEX = 32; // something we could not follow inside the word

export interface WordTok { t: "word"; value: string; raw: string; flags: number; start: number; end: number }
export interface OpTok { t: "op"; op: string; start: number; end: number }
export interface RedirTok { t: "redir"; op: string; start: number; end: number; heredoc?: { quoted: boolean; body?: string; subst?: boolean } }
export type Tok = WordTok | OpTok | RedirTok;

export class Unparseable extends Error {}

const BLANK = (c: string | undefined) => c === " " || c === "\t";
const META = (c: string | undefined) =>
  c === undefined || c === " " || c === "\t" || c === "\n" || c === "|" || c === "&" || c === ";" || c === "<" || c === ">" || c === "(" || c === ")";

const SIMPLE_PARAM = /^(#?[A-Za-z_][A-Za-z0-9_]*|#?[0-9]+|[@*#?$!-])$/;

export class Lexer {
  i = 0;
  readonly toks: Tok[] = [];
  readonly nestedSources: string[] = [];
  private pendingHeredocs: { tok: RedirTok; delim: string; stripTabs: boolean }[] = [];

  constructor(private readonly s: string) {}

  run(): Tok[] {
    const s = this.s;
    if (s.includes("\0")) throw new Unparseable("NUL byte in command");
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (BLANK(c)) { this.i++; continue; }
      if (c === "\\" && s[this.i + 1] === "\n") { this.i += 2; continue; }
      if (c === "#") { // comment: only at the start of a word, which is where we are
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        continue;
      }
      const start = this.i;
      if (c === "\n") {
        this.i++;
        this.toks.push({ t: "op", op: "\n", start, end: this.i });
        this.readHeredocBodies();
        continue;
      }
      if (c === ";") {
        if (s[this.i + 1] === ";" || s[this.i + 1] === "&") throw new Unparseable("case-statement terminator");
        this.i++;
        this.toks.push({ t: "op", op: ";", start, end: this.i });
        continue;
      }
      if (c === "&") {
        if (s[this.i + 1] === "&") { this.i += 2; this.toks.push({ t: "op", op: "&&", start, end: this.i }); continue; }
        if (s[this.i + 1] === ">") { this.readRedirect(start, ""); continue; }
        this.i++;
        this.toks.push({ t: "op", op: "&", start, end: this.i });
        continue;
      }
      if (c === "|") {
        const two = s[this.i + 1];
        const op = two === "|" ? "||" : two === "&" ? "|&" : "|";
        this.i += op.length;
        this.toks.push({ t: "op", op, start, end: this.i });
        continue;
      }
      if (c === "(" || c === ")") throw new Unparseable("subshell or grouping");
      if (c === "<" || c === ">") {
        if (s[this.i + 1] === "(") { this.readWord(); continue; } // process substitution is a word
        this.readRedirect(start, "");
        continue;
      }
      this.readWord();
    }
    if (this.pendingHeredocs.length > 0) throw new Unparseable("here-document without a body");
    return this.toks;
  }

  /** A redirection operator at i (an fd number, if any, was already consumed as `fd`). */
  private readRedirect(start: number, fd: string): void {
    const s = this.s;
    const ops = ["&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", ">", "<"];
    const op = ops.find((o) => s.startsWith(o, this.i))!;
    this.i += op.length;
    const tok: RedirTok = { t: "redir", op: fd + op, start, end: this.i };
    this.toks.push(tok);
    if (op === "<<" || op === "<<-") {
      while (BLANK(s[this.i])) this.i++;
      const w = this.readWordRaw();
      if (!w) throw new Unparseable("here-document without a delimiter");
      tok.heredoc = { quoted: (w.flags & F_QUOTED) !== 0 };
      this.pendingHeredocs.push({ tok, delim: w.value, stripTabs: op === "<<-" });
      tok.end = this.i;
    }
  }

  private readHeredocBodies(): void {
    const s = this.s;
    for (const h of this.pendingHeredocs) {
      const lines: string[] = [];
      let found = false;
      while (this.i < s.length) {
        let nl = s.indexOf("\n", this.i);
        if (nl < 0) nl = s.length;
        let line = s.slice(this.i, nl);
        this.i = Math.min(nl + 1, s.length);
        if (h.stripTabs) line = line.replace(/^\t+/, "");
        if (line === h.delim) { found = true; break; }
        lines.push(line);
      }
      if (!found) throw new Unparseable("here-document is not terminated");
      const body = lines.join("\n");
      h.tok.heredoc!.body = body;
      // An unquoted delimiter means the body is expanded like a double-quoted
      // string, after line continuations are removed (`$\<newline>(cmd)` runs cmd).
      const expanded = body.replace(/\\\n/g, "");
      if (!h.tok.heredoc!.quoted && /\$[([{]|`/.test(expanded)) {
        h.tok.heredoc!.subst = true;
        this.nestedSources.push(expanded);
      }
    }
    this.pendingHeredocs = [];
  }

  private readWord(): void {
    const w = this.readWordRaw();
    if (w) this.toks.push(w);
  }

  /** Read one word starting at i; handles an fd-number prefix of a redirection. */
  private readWordRaw(): WordTok | null {
    const s = this.s;
    const start = this.i;
    let value = "";
    let flags = 0;
    let openBracket = false;
    const atStart = () => this.i === start;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "<" || c === ">") {
        if (s[this.i + 1] === "(") { // process substitution
          this.i++;
          this.nestedSources.push(this.captureParens());
          flags |= F_SUBST;
          continue;
        }
        // `2>file`: an all-digit unquoted prefix is the fd of a redirection.
        if (!atStart() && /^[0-9]+$/.test(value) && flags === 0) {
          this.readRedirect(start, value);
          return null;
        }
        break;
      }
      if (META(c)) {
        if (c === "(") throw new Unparseable("unexpected `(` (function definition, array or extended glob)");
        // bash reads `name[ … ]` as one word up to the matching `]`, blanks and
        // all (`a[ 1 ]=1 rm -rf x` assigns, then runs rm): never split it here.
        if (openBracket && flags === 0 && /^[A-Za-z_][A-Za-z0-9_]*\[[^\]]*$/.test(value)) {
          throw new Unparseable("array subscript containing blanks or operators");
        }
        break;
      }
      if (c === "\\") {
        const n = s[this.i + 1];
        if (n === "\n") { this.i += 2; continue; }
        if (n === undefined) throw new Unparseable("trailing backslash");
        value += n;
        flags |= F_QUOTED;
        this.i += 2;
        continue;
      }
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) throw new Unparseable("unterminated single quote");
        value += s.slice(this.i + 1, end);
        flags |= F_QUOTED;
        this.i = end + 1;
        continue;
      }
      if (c === '"') {
        this.i++;
        flags |= F_QUOTED;
        value += this.readDoubleQuoted((f) => { flags |= f; });
        continue;
      }
      if (c === "$") {
        value += this.readDollar(false, (f) => { flags |= f; });
        continue;
      }
      if (c === "`") {
        this.nestedSources.push(this.captureBackticks());
        flags |= F_SUBST;
        continue;
      }
      if (c === "*" || c === "?" || c === "{") flags |= F_GLOB;
      // `[` alone (the test command) is literal; `[...]` is a bracket glob.
      if (c === "[") openBracket = true;
      if (c === "]" && openBracket) flags |= F_GLOB;
      // bash expands `~` at a word's start and after `=` or `:` (assignment-like words).
      if (c === "~" && (atStart() || s[this.i - 1] === "=" || s[this.i - 1] === ":")) flags |= F_TILDE;
      value += c;
      this.i++;
    }
    if (this.i === start) return null;
    return { t: "word", value, raw: s.slice(start, this.i), flags, start, end: this.i };
  }

  private readDoubleQuoted(setFlag: (f: number) => void): string {
    const s = this.s;
    let out = "";
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '"') { this.i++; return out; }
      if (c === "\\") {
        const n = s[this.i + 1];
        if (n === "\n") { this.i += 2; continue; }
        if (n === "$" || n === "`" || n === '"' || n === "\\") { out += n; this.i += 2; continue; }
        out += c;
        this.i++;
        continue;
      }
      if (c === "$") { out += this.readDollar(true, setFlag); continue; }
      if (c === "`") { this.nestedSources.push(this.captureBackticks()); setFlag(F_SUBST); continue; }
      out += c;
      this.i++;
    }
    throw new Unparseable("unterminated double quote");
  }

  /** `$` at i. Returns the literal text to append (the raw text for expansions). */
  private readDollar(inDq: boolean, setFlag: (f: number) => void): string {
    const s = this.s;
    const start = this.i;
    // bash drops `\<newline>` before it tokenizes, so `$\<newline>HOME` is
    // `$HOME` and `$\<newline>'\x72m'` is `$'\x72m'`: never a literal `$`.
    let k = this.i + 1;
    while (s[k] === "\\" && s[k + 1] === "\n") k += 2;
    if (k !== this.i + 1) {
      setFlag(F_EXPANSION);
      this.i = k - 1; // read on as if the `$` stood right before s[k]
    }
    const n = s[this.i + 1];
    if (n === "(") {
      this.i++;
      const inner = this.captureParens();
      this.nestedSources.push(inner.startsWith("(") && inner.endsWith(")") ? inner.slice(1, -1) : inner);
      setFlag(F_SUBST);
      return s.slice(start, this.i);
    }
    if (n === "[") { // obsolete arithmetic $[..]
      const end = s.indexOf("]", this.i + 2);
      if (end < 0) throw new Unparseable("unterminated $[");
      this.nestedSources.push(s.slice(this.i + 2, end));
      this.i = end + 1;
      setFlag(F_SUBST | F_COMPLEX);
      return s.slice(start, this.i);
    }
    if (n === "{") {
      const end = s.indexOf("}", this.i + 2);
      if (end < 0) throw new Unparseable("unterminated ${");
      const body = s.slice(this.i + 2, end);
      this.i = end + 1;
      // Anything beyond a plain name (defaults, substrings, indirection, arrays) can run code.
      setFlag(SIMPLE_PARAM.test(body) ? F_EXPANSION : F_SUBST | F_COMPLEX);
      if (!SIMPLE_PARAM.test(body)) this.nestedSources.push(body);
      return s.slice(start, this.i);
    }
    if (!inDq && n === "'") { // ANSI-C quoting: decoded by bash, treated as an expansion here
      let j = this.i + 2;
      while (j < s.length && s[j] !== "'") j += s[j] === "\\" ? 2 : 1;
      if (j >= s.length) throw new Unparseable("unterminated $'");
      this.i = j + 1;
      setFlag(F_EXPANSION | F_QUOTED);
      return s.slice(start, this.i);
    }
    if (!inDq && n === '"') { // locale string: like a double-quoted one
      this.i += 2;
      setFlag(F_EXPANSION | F_QUOTED);
      this.readDoubleQuoted(setFlag);
      return s.slice(start, this.i);
    }
    if (n !== undefined && /[A-Za-z_]/.test(n)) {
      let j = this.i + 1;
      while (j < s.length && /[A-Za-z0-9_]/.test(s[j]!)) j++;
      this.i = j;
      setFlag(F_EXPANSION);
      return s.slice(start, this.i);
    }
    if (n !== undefined && /[0-9@*#?$!-]/.test(n)) {
      this.i += 2;
      setFlag(F_EXPANSION);
      return s.slice(start, this.i);
    }
    this.i++;
    return "$";
  }

  /** `(` at i: return the balanced text between the parens (exclusive) and move past `)`. */
  private captureParens(): string {
    const s = this.s;
    const open = this.i;
    let depth = 0;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "\\") { this.i += 2; continue; }
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) throw new Unparseable("unterminated quote inside substitution");
        this.i = end + 1;
        continue;
      }
      if (c === '"') {
        this.i++;
        while (this.i < s.length && s[this.i] !== '"') this.i += s[this.i] === "\\" ? 2 : 1;
        if (this.i >= s.length) throw new Unparseable("unterminated quote inside substitution");
        this.i++;
        continue;
      }
      if (c === "(") depth++;
      if (c === ")") {
        depth--;
        if (depth === 0) {
          this.i++;
          return s.slice(open + 1, this.i - 1);
        }
      }
      this.i++;
    }
    throw new Unparseable("unterminated substitution");
  }

  private captureBackticks(): string {
    const s = this.s;
    let j = this.i + 1;
    while (j < s.length && s[j] !== "`") j += s[j] === "\\" ? 2 : 1;
    if (j >= s.length) throw new Unparseable("unterminated backquote");
    const inner = s.slice(this.i + 1, j);
    this.i = j + 1;
    return inner;
  }
}
