/**
 * The read-only command classifier: does a bash command line only look at
 * things? Used by strict read-only registries (subagents, the planner), which
 * must not change anything even when the model is told to.
 *
 * Built on analyzeBash (core/permissions/bash.ts): a line with any hazard
 * (redirection, substitution, expansion, wrappers such as xargs or env,
 * inline code, `find -exec`, `git -c`, `--output=` …) is refused, except a
 * filename glob for programs that have no option able to write or run
 * anything. Every remaining command must be on an allowlist, with the few
 * programs that can write through an option (sort -o, tree -o, date -s,
 * uniq IN OUT, most git subcommands) checked word by word. Anything not
 * understood is refused: the list errs on the side of "no".
 */
import { basename } from "node:path";
import { analyzeBash } from "./bash.ts";

export type ReadOnlyVerdict = { ok: true } | { ok: false; reason: string };

/** A program named by its absolute path in a system directory (/bin/ls), never a relative or other path. */
const SYSTEM_PROGRAM = /^\/(usr\/)?s?bin\/[^/]+$/;

/** Programs whose every option and operand only reads (or prints). */
const ANY_ARGS = new Set([
  "cat", "head", "tail", "wc", "ls", "stat", "du", "df", "pwd", "echo", "true", "false", "basename", "dirname",
  "realpath", "readlink", "whoami", "id", "uname", "nl", "cut", "tr", "diff", "cmp", "comm", "md5sum", "sha1sum",
  "sha256sum", "sha512sum", "cksum", "grep", "egrep", "fgrep", "column", "fold", "od", "hexdump", "strings",
  "test", "[", "seq", "which", "tac", "rev", "paste", "join", "expand", "unexpand", "jq", "cd", "type", "whereis", "printf",
]);

/** Programs allowed only when `check` finds no word that writes; reason when it does. */
const CHECKED: Record<string, (args: string[]) => string | null> = {
  find: () => null, // -exec/-delete/-fprint… are hazards already
  rg: () => null, // --pre is a hazard already (but a glob could smuggle it in)
  file: (args) => (args.some((a) => /^-[A-Za-z]*C/.test(a) || a.startsWith("--comp")) ? "file -C writes a compiled magic file" : null),
  sort: (args) => (args.some((a) => a.startsWith("--o") || /^-[A-Za-z]*o/.test(a)) ? "sort -o writes a file" : null),
  tree: (args) => (args.some((a) => /^-[A-Za-z]*[oR]/.test(a) || a.startsWith("--o")) ? "tree -o/-R writes files" : null),
  date: (args) => (args.some((a) => /^-[A-Za-z]*s/.test(a) || a.startsWith("--s")) ? "date -s sets the clock" : null),
  uniq: (args) => (args.filter((a) => !a.startsWith("-")).length > 1 ? "uniq with two operands writes the second" : null),
  git: checkGit,
};

/** git subcommands that only read, whatever their (hazard-free) options. */
const GIT_READERS = new Set([
  "status", "log", "diff", "show", "blame", "annotate", "ls-files", "ls-tree", "rev-parse", "rev-list", "cat-file",
  "describe", "shortlog", "grep", "show-ref", "merge-base", "name-rev", "for-each-ref", "count-objects", "version",
  "whatchanged", "diff-tree", "diff-files", "diff-index", "check-ignore", "check-attr", "cherry", "range-diff",
  "show-branch", "var",
]);

/** Flags of `git branch` / `git tag` that only list. */
const GIT_LIST_FLAGS = new Set([
  "-a", "-r", "-v", "-vv", "-l", "-n", "--all", "--remotes", "--list", "--verbose", "--show-current", "--contains",
  "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--no-color", "--color", "--column",
  "--no-column", "-i", "--ignore-case",
]);

/**
 * The only global git options read-only mode accepts: none names another
 * directory, repository or config (-C, --git-dir, --work-tree, -c,
 * --config-env, --exec-path, --namespace … are refused: git would read a
 * configuration the command chose, and run what it says).
 */
const GIT_SAFE_GLOBAL = new Set(["--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"]);

/** Options of reading subcommands that run a program or write a file. */
const GIT_RUNS = /^(--ext-diff|--textconv|--output(=|$)|-O|--open-files-in-pager|--exec(=|$)|--upload-pack|--receive-pack|--file(=|$)|-f$|--blob(=|$)|--include(=|$)|--includes$)/;

function checkGit(args: string[]): string | null {
  let i = 0;
  for (; i < args.length && args[i]!.startsWith("-"); i++) {
    const opt = args[i]!.split("=")[0]!;
    if (!GIT_SAFE_GLOBAL.has(opt)) return `git ${opt} makes git read another directory, repository or config; read-only mode runs git only on the workspace's own repository, with its global options limited to ${[...GIT_SAFE_GLOBAL].join(", ")}`;
  }
  const sub = args[i] ?? "";
  const rest = args.slice(i + 1);
  const runs = rest.find((a) => GIT_RUNS.test(a));
  if (runs) return `git ${sub} ${runs} runs a program, writes a file or reads another config`;
  if (GIT_READERS.has(sub)) return null;
  const onlyListing = (listFlags: string[]) => {
    const flags = rest.filter((a) => a.startsWith("-"));
    if (!flags.every((a) => GIT_LIST_FLAGS.has(a.split("=")[0]!))) return false;
    // A name without a listing flag creates a branch or tag.
    return rest.length === flags.length || flags.some((a) => listFlags.includes(a.split("=")[0]!));
  };
  const LIST = ["-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];
  const ok =
    (sub === "branch" && onlyListing(LIST)) ||
    (sub === "tag" && onlyListing(LIST)) ||
    (sub === "stash" && (rest[0] === "list" || rest[0] === "show")) ||
    (sub === "remote" && (rest.length === 0 || (rest.length === 1 && rest[0] === "-v") || rest[0] === "get-url")) ||
    (sub === "config" && rest.some((a) => ["--get", "--get-all", "--get-regexp", "--list", "-l"].includes(a)) &&
      !rest.some((a) => ["--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section"].includes(a))) ||
    (sub === "reflog" && (rest.length === 0 || rest[0] === "show" || rest[0]!.startsWith("-"))) ||
    (sub === "worktree" && rest[0] === "list") ||
    (sub === "notes" && (rest[0] === "list" || rest[0] === "show"));
  return ok ? null : `git ${sub || "(no subcommand)"}${rest.length ? " with these arguments" : ""} is not a read-only git command`;
}

/** A background `&` (not `&&`, not `>&`, not inside quotes): read-only children run foreground commands only. */
function hasBackgroundJob(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "\\") { i++; continue; }
    if (c === "'" || c === '"') { quote = c; continue; }
    if (c === "&") {
      if (text[i + 1] === "&") { i++; continue; }
      if (text[i - 1] === ">" || text[i - 1] === "<" || text[i - 1] === "|") continue;
      return true;
    }
  }
  return false;
}

/**
 * Is this command line read-only? `{ok: false, reason}` names the first part
 * that is not, in words the model can act on.
 */
export function classifyReadOnlyCommand(command: string): ReadOnlyVerdict {
  const no = (reason: string): ReadOnlyVerdict => ({ ok: false, reason });
  if (command.trim() === "") return no("the command is empty");
  const a = analyzeBash(command);
  if (a.error) return no(`the command could not be parsed (${a.error})`);
  const onlyGlob = a.hazards.every((h) => h === "glob");
  if (!onlyGlob) return no(`it uses ${a.hazards.filter((h) => h !== "glob").join(", ")}, which read-only mode does not allow`);
  if (hasBackgroundJob(command)) return no("it starts a background job; only foreground commands run in read-only mode");
  const names = a.commands.map((c) => basename(c.argv[0] ?? ""));
  if (names.includes("git") && names.some((n) => n === "cd" || n === "pushd")) {
    return no("it runs git after changing directory, so git would read another directory's repository and config; run git from the workspace");
  }
  for (const c of a.commands) {
    const word = c.argv[0] ?? "";
    // A program named by path (./ls, bin/cat) is whatever the repository put there, not the reader its name suggests.
    if (word.includes("/") && !SYSTEM_PROGRAM.test(word)) return no(`\`${word}\` names a program by path; read-only mode runs only the system's commands by name`);
    const name = basename(word);
    const args = c.argv.slice(1);
    if (ANY_ARGS.has(name)) continue;
    const check = CHECKED[name];
    if (!check) return no(`\`${name}\` is not on the read-only command list`);
    // A glob could expand to a file named like an option: only for ANY_ARGS programs.
    if (c.hazards.includes("glob")) return no(`\`${name}\` with a filename glob could receive an option from a file name`);
    const why = check(args);
    if (why) return no(why);
  }
  return { ok: true };
}
