/**
 * Argument expansion of a command template: `$ARGUMENTS` is everything after
 * the command name as typed; `$1 … $N` are its words, split like a shell
 * would (double or single quotes group words). A `$N` with no word is empty.
 */

export function splitArgs(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of args.matchAll(re)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return out;
}

/** Fill `$ARGUMENTS` and `$1…$N`; `$$` is a literal `$`. A template with no placeholder gets the arguments appended. */
export function expandTemplate(template: string, args: string): string {
  const words = splitArgs(args);
  const trimmed = args.trim();
  let used = false;
  const out = template.replace(/\$\$|\$ARGUMENTS\b|\$(\d+)/g, (m, n: string | undefined) => {
    if (m === "$$") return "$";
    used = true;
    if (m === "$ARGUMENTS") return trimmed;
    return words[Number(n) - 1] ?? "";
  });
  if (!used && trimmed) return `${out.trimEnd()}\n\nArguments: ${trimmed}`;
  return out;
}
