/**
 * Static analysis of a bash command line for the permission layer.
 *
 * This is deliberately a *recogniser*, not a general shell parser: it accepts
 * a small, fully understood subset (simple commands made of literal words,
 * joined by `;`, `&&`, `||`, `|`, `|&`, `&` or newlines) and tags everything
 * else with a hazard. A command with any hazard can never be covered by a
 * prefix, glob or bare `Bash` allow rule; only an exact literal rule for the
 * whole text (or a human) can approve it. Anything the recogniser does not
 * understand becomes "unparseable", which is the strictest tier, so a gap in
 * this file errs on the side of prompting.
 *
 * Semantics follow `bash -c` (non-interactive: no aliases, no history
 * expansion), which is how the bash tool runs commands.
 */

/** Why a command cannot be matched by a prefix/glob allow. */
export type BashHazard =
  // Tier "literal": blocks prefix/glob/bare allows, but the mode fallback may still allow (auto).
  | "expansion" // $VAR, ${VAR}, $'..', ~
  | "glob" // unquoted * ? [ or brace expansion
  | "assignment" // FOO=bar cmd, or a bare assignment
  | "redirect" // output/input redirection to or from a file
  | "heredoc" // <<EOF or <<<
  | "indirect" // xargs, find -exec, env/sudo/timeout wrappers, awk programs, git -c
  // Tier "nested": hides what really runs; needs a human (or yolo / an exact rule).
  | "substitution" // $(..), `..`, <(..), >(..), $((..)), complex ${..}
  | "eval"
  | "source"
  | "shell-c" // sh -c, bash -lc, a shell reading commands from stdin
  | "inline-code" // python -c, node -e, perl -e, an interpreter reading stdin
  | "dynamic-name" // the command name itself comes from an expansion
  | "unparseable"; // syntax outside the recognised subset (compound commands, subshells, unterminated quotes)

const NESTED: ReadonlySet<BashHazard> = new Set([
  "substitution", "eval", "source", "shell-c", "inline-code", "dynamic-name", "unparseable",
]);

export const isNestedHazard = (h: BashHazard): boolean => NESTED.has(h);

export interface BashCommand {
  /** Words after quote removal (only trustworthy when `hazards` is empty). */
  argv: string[];
  /** The source text of this part, trimmed. */
  text: string;
  hazards: BashHazard[];
  /** Commands this one runs on its behalf (find -exec, xargs, wrappers), for deny checks. */
  inner: string[][];
}

export interface BashAnalysis {
  text: string;
  commands: BashCommand[];
  /** Union of every part's hazards plus whole-line ones. */
  hazards: BashHazard[];
  /** True when some hazard is in the nested tier. */
  nested: boolean;
  /** Text of command/process substitutions and `-c` strings, analysed recursively for deny rules. */
  nestedSources: string[];
  /** First reason the line could not be parsed, when it could not. */
  error?: string;
}

// ---------------------------------------------------------------- tokens

const F_QUOTED = 1;
const F_EXPANSION = 2;
const F_SUBST = 4;
const F_GLOB = 8;
const F_TILDE = 16;
const F_COMPLEX = 32; // something we could not follow inside the word

interface WordTok { t: "word"; value: string; raw: string; flags: number; start: number; end: number }
interface OpTok { t: "op"; op: string; start: number; end: number }
interface RedirTok { t: "redir"; op: string; start: number; end: number; heredoc?: { quoted: boolean; body?: string; subst?: boolean } }
type Tok = WordTok | OpTok | RedirTok;

class Unparseable extends Error {}

const BLANK = (c: string | undefined) => c === " " || c === "\t";
const META = (c: string | undefined) =>
  c === undefined || c === " " || c === "\t" || c === "\n" || c === "|" || c === "&" || c === ";" || c === "<" || c === ">" || c === "(" || c === ")";

const SIMPLE_PARAM = /^(#?[A-Za-z_][A-Za-z0-9_]*|#?[0-9]+|[@*#?$!-])$/;

class Lexer {
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

// ---------------------------------------------------------------- commands

const RESERVED = new Set([
  "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "select",
  "function", "time", "coproc", "{", "}", "!", "[[", "]]", "in",
]);

/** Builtins whose `NAME=value` arguments set (and may export) shell variables. */
const DECLARATION_BUILTINS = new Set(["export", "declare", "typeset", "local", "readonly"]);

const ARITH_BUILTINS = new Set([
  "declare", "typeset", "local", "export", "readonly", "printf", "read", "unset", "test", "[", "mapfile", "readarray", "wait", "getopts", "shift", "return", "exit", "ulimit",
]);

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "ash", "fish", "csh", "tcsh", "yash", "busybox", "rbash"]);

/** Interpreter → flags that take inline code. An interpreter with no script operand reads code from stdin. */
const INTERPRETERS: Record<string, string[]> = {
  node: ["-e", "--eval", "-p", "--print"],
  nodejs: ["-e", "--eval", "-p", "--print"],
  bun: ["-e", "--eval", "-p", "--print"],
  deno: [],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  php: ["-r", "-B", "-R", "-E", "-F"],
  lua: ["-e"],
  luajit: ["-e"],
  rscript: ["-e", "--expr"],
  r: ["-e"],
  osascript: ["-e"],
  pwsh: ["-c", "-command", "-encodedcommand", "-e", "-ec"],
  powershell: ["-c", "-command", "-encodedcommand", "-e", "-ec"],
  julia: ["-e", "--eval", "-E", "--print"],
  tclsh: [],
  irb: [],
  jshell: [],
  ghci: ["-e"],
  guile: ["-c", "-e"],
  racket: ["-e", "--eval"],
  sbcl: ["--eval"],
  elixir: ["-e", "--eval"],
  erl: ["-eval"],
  groovy: ["-e"],
  kotlin: ["-e"],
  scala: ["-e"],
};
const PYTHON_RE = /^(python|pypy)[0-9.]*$/;

const VERSION_ONLY = new Set(["--version", "-V", "-v", "--help", "-h", "-version"]);

const basename = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/** Wrappers whose operands form another command. Value: options that take a separate argument. */
const WRAPPERS: Record<string, { argOpts: string[]; operands?: number }> = {
  sudo: { argOpts: ["-u", "-g", "-C", "-D", "-h", "-p", "-R", "-T", "-U", "--user", "--group", "--chdir", "--prompt"] },
  doas: { argOpts: ["-u", "-C"] },
  nohup: { argOpts: [] },
  nice: { argOpts: ["-n", "--adjustment"] },
  ionice: { argOpts: ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"] },
  timeout: { argOpts: ["-s", "-k", "--signal", "--kill-after"], operands: 1 },
  stdbuf: { argOpts: ["-i", "-o", "-e"] },
  setsid: { argOpts: [] },
  chrt: { argOpts: [], operands: 1 },
  taskset: { argOpts: [], operands: 1 },
  command: { argOpts: [] },
  builtin: { argOpts: [] },
  exec: { argOpts: ["-a"] },
  env: { argOpts: ["-u", "-C", "--unset", "--chdir"] },
  xargs: { argOpts: ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--max-chars", "--replace"] },
  unbuffer: { argOpts: [] },
  caffeinate: { argOpts: [] },
};

/** Commands that run another command given as a shell string. */
const SHELL_STRING_RUNNERS = new Set(["watch", "parallel", "su", "script", "flock", "runuser", "ssh-agent", "entr", "nohup.sh"]);

interface Classified { hazards: BashHazard[]; inner: string[][]; nestedSources: string[] }

/** Split option words from operands; returns the index of the first operand. */
function skipOptions(argv: string[], from: number, argOpts: string[]): number {
  let i = from;
  while (i < argv.length) {
    const a = argv[i]!;
    if (a === "--") return i + 1;
    if (!a.startsWith("-") || a === "-") return i;
    if (argOpts.includes(a)) { i += 2; continue; }
    i++;
  }
  return i;
}

/** Classify one literal argv. Recurses through wrappers. */
function classifyArgv(argv: string[], depth = 0): Classified {
  const out: Classified = { hazards: [], inner: [], nestedSources: [] };
  if (argv.length === 0 || depth > 8) return out;
  const name = basename(argv[0]!);
  const lower = name.toLowerCase();
  const add = (h: BashHazard) => { if (!out.hazards.includes(h)) out.hazards.push(h); };
  const recurse = (inner: string[]) => {
    if (inner.length === 0) return;
    out.inner.push(inner);
    const c = classifyArgv(inner, depth + 1);
    for (const h of c.hazards) add(h);
    out.inner.push(...c.inner);
    out.nestedSources.push(...c.nestedSources);
  };

  // Builtins that evaluate names or numbers arithmetically: `a[$(cmd)]` in a
  // quoted, otherwise literal argument still runs cmd.
  // `export PATH=…; npm test` or `declare -x NODE_OPTIONS=…` changes what later
  // commands run exactly as `NAME=value cmd` does, so it is an assignment too.
  if (DECLARATION_BUILTINS.has(name) && argv.slice(1).some((a) => ASSIGN_RE.test(a))) add("assignment");
  if (name === "printf" && argv.slice(1).some((a) => /^-v/.test(a))) add("assignment");
  if (name === "let") { add("eval"); return out; }
  if (ARITH_BUILTINS.has(name) && argv.slice(1).some((a) => a.includes("$") || a.includes("`"))) {
    add("eval");
    out.nestedSources.push(...argv.slice(1).filter((a) => a.includes("$") || a.includes("`")));
    return out;
  }
  if (name === "hash" && argv.includes("-p")) { add("eval"); return out; }

  if (name === "eval") { add("eval"); out.nestedSources.push(argv.slice(1).join(" ")); return out; }
  if (name === "source" || name === ".") { add("source"); return out; }
  if (name === "trap" || name === "alias" || name === "enable") { add("eval"); return out; }

  if (SHELLS.has(lower)) {
    let operand = -1;
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === "--") { operand = i + 1 < argv.length ? i + 1 : -1; break; }
      if (/^[-+][A-Za-z]*$/.test(a) && a.length > 1) {
        if (a.slice(1).includes("c")) {
          add("shell-c");
          const code = argv[i + 1];
          if (code !== undefined) out.nestedSources.push(code);
          return out;
        }
        if (a.slice(1).includes("s")) { add("shell-c"); return out; }
        if (a === "-o" || a === "+o" || a === "-O" || a === "+O") i++;
        continue;
      }
      if (a.startsWith("--")) {
        if (a === "--version" || a === "--help") return out;
        if (a === "--command" || a === "--init-file" || a === "--rcfile") { add("shell-c"); return out; }
        continue;
      }
      operand = i;
      break;
    }
    if (lower === "busybox" && operand > 0) return classifyArgv(argv.slice(operand), depth + 1);
    // No script file: commands come from stdin (`curl … | sh`).
    if (operand < 0) add("shell-c");
    return out;
  }

  const inlineFlags = PYTHON_RE.test(lower) ? ["-c"] : INTERPRETERS[lower];
  if (inlineFlags) {
    let hasOperand = false;
    let onlyInfo = argv.length > 1;
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i]!;
      const flag = a.split("=")[0]!;
      if (inlineFlags.includes(flag) || inlineFlags.includes(flag.toLowerCase())) { add("inline-code"); return out; }
      // Bundled short flags: perl -ne, ruby -pe, python -Sc.
      if (/^-[A-Za-z]+$/.test(a) && inlineFlags.some((f) => /^-[A-Za-z]$/.test(f) && a.slice(1).includes(f[1]!))) {
        add("inline-code");
        return out;
      }
      if (a === "-" ) { add("inline-code"); return out; }
      if (lower === "deno" && (a === "eval" || a === "repl")) { add("inline-code"); return out; }
      if (!VERSION_ONLY.has(a)) onlyInfo = false;
      if (!a.startsWith("-")) { hasOperand = true; break; }
      if (PYTHON_RE.test(lower) && a === "-m") { hasOperand = true; break; }
    }
    if (!hasOperand && !onlyInfo) add("inline-code");
    return out;
  }

  if (lower === "awk" || lower === "gawk" || lower === "mawk" || lower === "nawk") { add("indirect"); return out; }
  if (lower === "sed" || lower === "gsed") {
    // GNU sed's `e` command and `w` files run or write things a prefix rule never showed.
    add("indirect");
    return out;
  }

  if (name === "find") {
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === "-exec" || a === "-execdir" || a === "-ok" || a === "-okdir") {
        add("indirect");
        let j = i + 1;
        while (j < argv.length && argv[j] !== ";" && argv[j] !== "+") j++;
        recurse(argv.slice(i + 1, j));
        i = j;
      } else if (a === "-delete" || a === "-fprint" || a === "-fprintf" || a === "-fls" || a === "-fprint0") {
        add("indirect");
      }
    }
    return out;
  }

  if (name === "git") {
    classifyGit(argv, add, (src) => out.nestedSources.push(src), recurse);
    return out;
  }

  // `mvn:*` is the suggested rule for `mvn test`; plugin goals named on the
  // command line (`exec:exec -Dexec.executable=sh`, or any plugin by its full
  // coordinates) run programs no pom asked for.
  if ((name === "mvn" || name === "mvnw") && argv.slice(1).some((a) => !a.startsWith("-") && (MVN_RUNNER_GOAL.test(a) || a.split(":").length > 2))) {
    add("indirect");
    return out;
  }

  const programOpts = PROGRAM_OPTIONS[name];
  if (programOpts) {
    classifyProgramOptions(name, argv, programOpts, add, (src) => out.nestedSources.push(src));
    if (out.hazards.length > 0) return out;
  }

  if (SHELL_STRING_RUNNERS.has(lower)) {
    add("shell-c");
    return out;
  }

  if ((name === "npx" || (name === "npm" && argv[1] === "exec")) && argv.some((a) => a === "-c" || a.startsWith("--call"))) {
    add("shell-c");
    return out;
  }

  // `command -v x` only asks where x is.
  if (name === "command" && argv.slice(1).some((a) => a === "-v" || a === "-V")) return out;
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    add("indirect");
    if ((name === "sudo" || name === "doas") && argv.some((a) => a === "-s" || a === "-i" || a === "--shell" || a === "--login")) {
      add("shell-c");
      return out;
    }
    if (name === "env" && argv.some((a) => a === "-S" || a.startsWith("--split-string") || /^-[a-zA-Z]*S/.test(a))) {
      add("shell-c");
      return out;
    }
    let i = skipOptions(argv, 1, wrapper.argOpts);
    if (name === "env") {
      while (i < argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]!)) { add("assignment"); i++; }
    }
    i += wrapper.operands ?? 0;
    recurse(argv.slice(i));
  }
  return out;
}

/** Global git options whose value is the next word. */
const GIT_GLOBAL_ARG = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"]);

/**
 * Long git options (any subcommand) that run a program or shell string, or
 * write a file. git accepts any unambiguous prefix of a long option, so
 * `--upload-p=…` is `--upload-pack=…`: a word counts when it is a prefix.
 */
const GIT_LONG: [string, BashHazard][] = [
  ["upload-pack", "shell-c"], // fetch, pull, clone, ls-remote: run via the shell
  ["receive-pack", "shell-c"], // push
  ["exec", "shell-c"], // rebase --exec, push/archive --exec
  ["open-files-in-pager", "shell-c"], // grep -O
  ["extcmd", "shell-c"], // difftool
  ["config", "indirect"], // clone --config core.sshCommand=…
  ["template", "indirect"], // clone/init --template: hooks from a directory
  ["output", "redirect"], // diff/log --output=FILE
];

/** Short forms of the above, by subcommand. */
const GIT_SHORT: Record<string, Record<string, BashHazard>> = {
  grep: { O: "shell-c" },
  rebase: { x: "shell-c" },
  difftool: { x: "shell-c" },
  clone: { u: "shell-c", c: "indirect" },
  "ls-remote": { u: "shell-c" },
};

/** git subcommands that run a command given in their arguments. */
const GIT_RUNS: Record<string, (args: string[]) => BashHazard | null> = {
  submodule: (args) => (args.includes("foreach") ? "shell-c" : null),
  bisect: (args) => (args[0] === "run" ? "indirect" : null),
  "filter-branch": () => "shell-c",
};

function classifyGit(argv: string[], add: (h: BashHazard) => void, nested: (src: string) => void, recurse: (inner: string[]) => void): void {
  let i = 1;
  for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
    const a = argv[i]!;
    // `git -c alias.x='!cmd'` and friends run arbitrary commands.
    if (a.startsWith("-c") || a.startsWith("--config-env") || a.startsWith("--exec-path")) add("indirect");
    if (GIT_GLOBAL_ARG.has(a)) i++;
  }
  const sub = argv[i] ?? "";
  const rest = argv.slice(i + 1);
  const runs = GIT_RUNS[sub]?.(rest) ?? null;
  if (runs) {
    add(runs);
    if (sub === "bisect") recurse(rest.slice(1));
    else nested(rest.slice(rest.indexOf("foreach") + 1).join(" "));
  }
  const short = GIT_SHORT[sub] ?? {};
  for (let k = 0; k < rest.length; k++) {
    const a = rest[k]!;
    if (a === "--") break;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const opt = a.slice(2, eq < 0 ? undefined : eq);
      if (opt === "") continue;
      const hit = GIT_LONG.find(([long]) => long.startsWith(opt));
      if (!hit) continue;
      add(hit[1]);
      const value = eq < 0 ? rest[k + 1] : a.slice(eq + 1);
      if (hit[1] === "shell-c" && value !== undefined) nested(value);
    } else if (/^-[A-Za-z0-9]/.test(a)) {
      // A cluster like `-nO<cmd>`: the first option that takes a value owns the rest.
      for (let c = 1; c < a.length; c++) {
        const h = short[a[c]!];
        if (!h) continue;
        add(h);
        const value = c + 1 < a.length ? a.slice(c + 1) : rest[k + 1];
        if (h === "shell-c" && value !== undefined) nested(value);
        break;
      }
    }
  }
}

interface ProgramOptions {
  /** Long option names (without `--`) and what each does; a typed word matches when it is a prefix of one. */
  long: Record<string, BashHazard>;
  /** Short option letters and what each does (also inside clusters like `-xIprog`). */
  short?: Record<string, BashHazard>;
  /** Exact long names that are harmless although they prefix a listed one. */
  except?: string[];
  /** tar: a first word without a dash is an old-style option cluster. */
  oldStyle?: boolean;
  /** Go's flag package: `-name` and `--name` are the same long option, never abbreviated. */
  goFlags?: boolean;
}

/**
 * Options of everyday tools that run a program, a shell string or inline
 * code they are handed, so `Bash(tool:*)` would cover running anything.
 * GNU getopt_long and npm's option parser accept unambiguous abbreviations
 * (`sort --compress-prog=…`, `npm test --node-opt=…`), hence prefix matching.
 */
const PROGRAM_OPTIONS: Record<string, ProgramOptions> = {
  rg: { long: { pre: "indirect" } }, // runs a preprocessor program on every file
  sort: { long: { "compress-program": "indirect" } },
  tar: {
    long: {
      "to-command": "shell-c", "checkpoint-action": "shell-c", "info-script": "shell-c", "new-volume-script": "shell-c",
      "use-compress-program": "indirect", "rsh-command": "indirect", "rmt-command": "indirect",
    },
    short: { I: "indirect", F: "shell-c" },
    except: ["checkpoint"],
    oldStyle: true,
  },
  rsync: { long: { rsh: "shell-c", "rsync-path": "shell-c" }, short: { e: "shell-c" } },
  man: { long: { pager: "indirect", html: "indirect" }, short: { P: "indirect", H: "indirect" } },
  make: { long: { eval: "shell-c" }, short: { E: "shell-c" } },
  // node-options takes `--import=data:text/javascript,…`: code for every node the script starts.
  // Suggested rules cover these tools by prefix (`go test:*`, `cargo build:*`).
  go: { long: { exec: "indirect", toolexec: "indirect", vettool: "indirect" }, goFlags: true },
  cargo: { long: { config: "indirect" } }, // --config build.rustc-wrapper=… / target.<triple>.runner=…
  npm: {
    long: { "node-options": "inline-code", "script-shell": "indirect", prefix: "indirect", userconfig: "indirect", globalconfig: "indirect" },
    short: { C: "indirect" },
  },
};

/** Maven plugin prefixes whose goals run a program or script given as a property. */
const MVN_RUNNER_GOAL = /^(exec|antrun|groovy|gplus|gmavenplus|scripting|jshell|jruby|frontend|shell):/;

/** make variables that change how every recipe runs, whatever the Makefile says. */
const MAKE_SHELL_VARS = /^(SHELL|\.SHELLFLAGS|MAKESHELL|MAKEFLAGS|MFLAGS|MAKE)\+?=/;

function classifyProgramOptions(name: string, argv: string[], spec: ProgramOptions, add: (h: BashHazard) => void, nested: (src: string) => void): void {
  const hit = (h: BashHazard, value: string | undefined) => {
    add(h);
    if (h === "shell-c" && value !== undefined) nested(value);
  };
  for (let k = 1; k < argv.length; k++) {
    const a = argv[k]!;
    if (a === "--") break;
    if (name === "make" && MAKE_SHELL_VARS.test(a)) { add("indirect"); continue; }
    if (spec.goFlags) {
      const m = /^--?([A-Za-z][\w.-]*)(=|$)/.exec(a);
      const h = m ? spec.long[m[1]!] : undefined;
      if (h) hit(h, m![2] === "=" ? a.slice(a.indexOf("=") + 1) : argv[k + 1]);
      continue;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const opt = a.slice(2, eq < 0 ? undefined : eq);
      if (opt === "" || spec.except?.includes(opt)) continue;
      const long = Object.keys(spec.long).find((l) => l.startsWith(opt));
      if (long) hit(spec.long[long]!, eq < 0 ? argv[k + 1] : a.slice(eq + 1));
      continue;
    }
    const cluster = a.startsWith("-") ? a.slice(1) : spec.oldStyle && k === 1 ? a : "";
    for (let c = 0; c < cluster.length && spec.short; c++) {
      const h = spec.short[cluster[c]!];
      if (!h) continue;
      hit(h, c + 1 < cluster.length && a.startsWith("-") ? cluster.slice(c + 1) : argv[k + 1]);
      break;
    }
  }
}

// ---------------------------------------------------------------- analysis

const ASSIGN_RE = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/** Harmless redirections: fd duplication/closing and /dev/null. */
function harmlessRedirect(op: string, target: WordTok | undefined): boolean {
  if (!target) return false;
  const bare = op.replace(/^[0-9]+/, "");
  if ((bare === ">&" || bare === "<&") && target.flags === 0 && /^([0-9]+-?|-)$/.test(target.value)) return true;
  return target.flags === 0 && target.value === "/dev/null" && [">", ">>", "&>", "&>>", ">|", "<"].includes(bare);
}

function segmentToCommand(toks: Tok[], text: string, line: BashAnalysis, classify: boolean): BashCommand {
  const hazards: BashHazard[] = [];
  const add = (h: BashHazard) => { if (!hazards.includes(h)) hazards.push(h); };
  const words: WordTok[] = [];
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.t === "redir") {
      if (t.heredoc) {
        add("heredoc");
        if (t.heredoc.subst) add("substitution");
        continue;
      }
      const target = toks[k + 1];
      if (!target || target.t !== "word") throw new Unparseable(`redirection ${t.op} without a target`);
      k++;
      if (t.op.endsWith("<<<")) { add("heredoc"); }
      else if (!harmlessRedirect(t.op, target)) add("redirect");
      if (target.flags & F_SUBST) add("substitution");
      else if (target.flags & (F_EXPANSION | F_TILDE | F_GLOB)) add("expansion");
      continue;
    }
    if (t.t === "word") words.push(t);
  }
  // Leading assignments (only unquoted NAME= counts, as in bash).
  let w0 = 0;
  // Line continuations vanish before bash tokenizes: `X\<newline>=1 rm` assigns X.
  while (w0 < words.length && ASSIGN_RE.test(words[w0]!.raw.replace(/\\\n/g, ""))) {
    add("assignment");
    if (words[w0]!.flags & F_SUBST) add("substitution");
    w0++;
  }
  const cmdWords = words.slice(w0);
  const argv = cmdWords.map((w) => w.value);
  if (cmdWords.length > 0) {
    const first = cmdWords[0]!;
    if ((first.flags & F_QUOTED) === 0 && RESERVED.has(first.value)) throw new Unparseable(`compound command (${first.value})`);
    if (first.flags & (F_EXPANSION | F_SUBST | F_GLOB | F_TILDE)) add("dynamic-name");
  }
  for (const w of cmdWords) {
    if (w.flags & F_SUBST) add("substitution");
    if (w.flags & F_COMPLEX) add("substitution");
    if (w.flags & (F_EXPANSION | F_TILDE)) add("expansion");
    if (w.flags & F_GLOB) add("glob");
  }
  const c = classify ? classifyArgv(argv) : { hazards: [], inner: [], nestedSources: [] };
  for (const h of c.hazards) add(h);
  line.nestedSources.push(...c.nestedSources);
  return { argv, text: text.trim(), hazards, inner: c.inner };
}

/**
 * Analyse a bash command line. Never throws. With `lexicalOnly`, commands are
 * split and unquoted but not classified (for reading rule patterns).
 */
export function analyzeBash(text: string, opts: { lexicalOnly?: boolean } = {}): BashAnalysis {
  const res: BashAnalysis = { text, commands: [], hazards: [], nested: false, nestedSources: [] };
  try {
    const lx = new Lexer(text);
    const toks = lx.run();
    res.nestedSources.push(...lx.nestedSources);
    let seg: Tok[] = [];
    let prevOp: string | null = "start";
    const flush = (op: string | null) => {
      if (seg.length === 0) {
        // Empty parts are fine after `;`, `&` and newlines (trailing or blank lines), nowhere else.
        if (op === "\n" && (prevOp === "start" || prevOp === "\n" || prevOp === ";" || prevOp === "&")) return;
        if (op === null && prevOp !== "&&" && prevOp !== "||" && prevOp !== "|" && prevOp !== "|&") return;
        throw new Unparseable(`empty command before ${op === null ? "end of input" : JSON.stringify(op)}`);
      }
      const start = seg[0]!.start;
      const end = seg[seg.length - 1]!.end;
      res.commands.push(segmentToCommand(seg, text.slice(start, end), res, !opts.lexicalOnly));
      seg = [];
    };
    for (const t of toks) {
      // A newline right after `&&`, `||` or `|` continues the list.
      if (t.t === "op" && t.op === "\n" && seg.length === 0 && (prevOp === "&&" || prevOp === "||" || prevOp === "|" || prevOp === "|&")) continue;
      if (t.t === "op") {
        flush(t.op);
        prevOp = t.op;
      } else {
        seg.push(t);
      }
    }
    flush(null);
    if (res.commands.length === 0) throw new Unparseable("empty command");
  } catch (e) {
    if (!(e instanceof Unparseable)) throw e;
    res.error = e.message;
    res.hazards.push("unparseable");
  }
  for (const c of res.commands) for (const h of c.hazards) if (!res.hazards.includes(h)) res.hazards.push(h);
  res.nested = res.hazards.some(isNestedHazard);
  return res;
}

/** Split a rule's command text into words; null when it is not a plain literal command. */
export function literalWords(text: string): string[] | null {
  const a = analyzeBash(text, { lexicalOnly: true });
  if (a.hazards.length > 0 || a.commands.length !== 1) return null;
  return a.commands[0]!.argv;
}
