/**
 * Classification of one literal command (argv) for bash analysis
 * (core/permissions/bash.ts): shells and interpreters given code, wrappers
 * that run another command (recursively), builtins that assign or evaluate.
 */
import type { BashHazard } from "./bash-hazards.ts";
import { MVN_RUNNER_GOAL, PROGRAM_OPTIONS, classifyGit, classifyProgramOptions } from "./bash-programs.ts";

/** A leading `NAME=` (or `NAME[i]=`, `NAME+=`) word. */
export const ASSIGN_RE = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

export const RESERVED = new Set([
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
export function classifyArgv(argv: string[], depth = 0): Classified {
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
