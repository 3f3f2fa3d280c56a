/**
 * The hazards bash analysis tags a command with (core/permissions/bash.ts),
 * in two tiers, and the shape of its result.
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

/** Each hazard in words, for the reason a decision gives. */
export const HAZARD_TEXT: Record<BashHazard, string> = {
  expansion: "a variable or ~ expansion",
  glob: "a filename glob or brace expansion",
  assignment: "an environment assignment",
  redirect: "a file redirection",
  heredoc: "a here-document",
  indirect: "a command that runs other commands or programs (xargs, find -exec, env, sudo, awk, sed, git -c …)",
  substitution: "command or process substitution",
  eval: "eval",
  source: "source / .",
  "shell-c": "a nested shell (sh -c, or a shell reading commands from stdin)",
  "inline-code": "inline interpreter code (python -c, node -e …)",
  "dynamic-name": "a command name that comes from an expansion",
  unparseable: "shell syntax the checker cannot follow",
};
