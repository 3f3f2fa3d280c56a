// `reasonix --help` without yargs. Rendering yargs' help costs ~50 ms of CPU
// (its layout measures every cell with Intl.Segmenter and an emoji regex);
// the top-level page only lists the commands, so it is laid out here in the
// same format. cli/tests/top-help.test.ts compares the two at 100 and 80 columns.
import type { CommandModule } from "yargs";

export const USAGE = "reasonix <command> [options]\n\nA coding agent for your machine and your remote boxes.";
export const COMPLETION = { name: "completion", describe: "Print a shell completion script (bash/zsh): reasonix completion >> ~/.bashrc" };
export const VERSION_OPTION = "Print the version and exit";

/** The help width yargs is given: the terminal's, at most 100. */
export const helpWidth = (): number => Math.min(100, process.stdout.columns || 100);

/** Greedy word wrap, as yargs' layout does (words longer than the column stay whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const word of text.split(" ")) {
    if (cur && cur.length + 1 + word.length > width) {
      lines.push(cur);
      cur = word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  lines.push(cur);
  return lines;
}

/** Two columns: `left` padded, `right` wrapped to what is left of `width`. */
function table(rows: [string, string, string?][], width: number): string[] {
  const leftWidth = Math.max(...rows.map(([l]) => l.length)) + 4;
  const out: string[] = [];
  for (const [left, right, tag] of rows) {
    const avail = width - leftWidth;
    const body = wrap(right, avail);
    if (tag) {
      // A type tag sits at the right edge of the last line (or its own line when it does not fit).
      const last = body[body.length - 1]!;
      const pad = avail - last.length - tag.length;
      if (pad >= 1) body[body.length - 1] = last + " ".repeat(pad) + tag;
      else body.push(" ".repeat(avail - tag.length) + tag);
    }
    body.forEach((line, i) => out.push(`${(i === 0 ? `  ${left}` : "").padEnd(leftWidth)}${line}`.trimEnd()));
  }
  return out;
}

/**
 * The page yargs would print, or null on a narrow terminal (under 80 columns
 * yargs breaks long words in its own way; it renders those itself).
 */
export function renderTopHelp(commands: CommandModule<any, any>[], width = helpWidth()): string | null {
  if (width < 80) return null;
  const rows: [string, string][] = commands.map((c) => [`reasonix ${String([c.command].flat()[0])}`, String(c.describe ?? "")]);
  rows.push([`reasonix ${COMPLETION.name}`, COMPLETION.describe]);
  const options: [string, string, string][] = [
    ["-h, --help", "Show help", "[boolean]"],
    ["-v, --version", VERSION_OPTION, "[boolean]"],
  ];
  return [USAGE, "", "Commands:", ...table(rows, width), "", "Options:", ...table(options, width), ""].join("\n");
}
