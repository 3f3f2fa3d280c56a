/**
 * Options of particular programs that run code or write files on their own
 * (git's, and build tools' and others' in PROGRAM_OPTIONS), for bash analysis's
 * command classification (core/permissions/bash-commands.ts).
 */
import type { BashHazard } from "./bash-hazards.ts";

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

export function classifyGit(argv: string[], add: (h: BashHazard) => void, nested: (src: string) => void, recurse: (inner: string[]) => void): void {
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

export interface ProgramOptions {
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
export const PROGRAM_OPTIONS: Record<string, ProgramOptions> = {
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
export const MVN_RUNNER_GOAL = /^(exec|antrun|groovy|gplus|gmavenplus|scripting|jshell|jruby|frontend|shell):/;

/** make variables that change how every recipe runs, whatever the Makefile says. */
const MAKE_SHELL_VARS = /^(SHELL|\.SHELLFLAGS|MAKESHELL|MAKEFLAGS|MFLAGS|MAKE)\+?=/;

export function classifyProgramOptions(name: string, argv: string[], spec: ProgramOptions, add: (h: BashHazard) => void, nested: (src: string) => void): void {
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

