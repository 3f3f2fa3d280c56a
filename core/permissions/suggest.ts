/**
 * The Bash rule an "allow for this session / always" answer stores
 * (PermissionDecision.suggestedRule).
 */
import type { BashAnalysis } from "./bash-hazards.ts";

/** Tool families whose subcommand is a stable, reviewable unit. */
const PREFIX_FRIENDLY: Record<string, number> = {
  npm: 2, pnpm: 2, yarn: 2, bun: 2, go: 2, cargo: 2, make: 1, pytest: 1, mvn: 1, gradle: 1, dotnet: 2, tsc: 1, jest: 1, vitest: 1,
};

/**
 * The rule an "allow always" answer stores: an exact command, or for common
 * build/test tools a conservative prefix (`npm run test:*`, `go test:*`).
 * A command with any hazard is stored as its exact text only.
 */
export function suggestBashRule(a: BashAnalysis): string {
  const text = a.text.trim();
  if (a.hazards.length > 0 || a.commands.length !== 1 || /[*()]/.test(text)) return `Bash=${text}`;
  const argv = a.commands[0]!.argv;
  const depth = PREFIX_FRIENDLY[argv[0]!];
  if (depth !== undefined) {
    const words = argv[0] === "npm" || argv[0] === "pnpm" || argv[0] === "bun" ? (argv[1] === "run" ? 3 : 2) : depth;
    const head = argv.slice(0, words);
    if (head.length === words && head.every((w) => /^[A-Za-z0-9_./:@-]+$/.test(w) && !w.startsWith("-"))) {
      const last = head[head.length - 1]!;
      // `npm run test:unit` → `npm run test:*` (the script family), else the words themselves.
      const family = last.includes(":") ? last.slice(0, last.indexOf(":")) : last;
      return `Bash(${[...head.slice(0, -1), family].join(" ")}:*)`;
    }
  }
  return `Bash(${argv.map(quoteWord).join(" ")})`;
}

const quoteWord = (w: string) => (/^[A-Za-z0-9_./:@%+=,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
