// Loaded only when an unexpected error reaches a front end's top level
// (output.ts reportError, main.ts process handlers): writes a scrubbed crash
// report and says, in one line, where it is and how to review it.
import { buildReport, localScrubContext, writeReport, type Surface } from "../core/crash/store.ts";
import { reasonixHome } from "../core/home.ts";

/** Which front end this process is, from its arguments. */
export function surfaceOf(argv: string[] = process.argv.slice(2)): Surface {
  const words = argv.filter((a) => !a.startsWith("-"));
  switch (words[0]) {
    case undefined:
    case "chat": return "chat";
    case "run": return "run";
    case "serve":
    case "web": return "serve";
    case "acp": return "acp";
    case "mcp": return words[1] === "serve" ? "mcp-serve" : "cli";
    case "remote": return "remote";
    default: return "cli";
  }
}

let recorded = false;

/** Save a report for `err` (once per process) and print where it went. Never throws. */
export function recordCrash(err: unknown): void {
  if (recorded) return;
  recorded = true;
  try {
    const home = reasonixHome();
    const path = writeReport(buildReport(err, surfaceOf(), localScrubContext(home)), home);
    process.stderr.write(`A crash report was saved to ${path} (nothing is sent); review or send it with: reasonix report\n`);
  } catch (e) {
    process.stderr.write(`(could not save a crash report: ${e instanceof Error ? e.message : String(e)})\n`);
  }
}

/** A server process died: the remote serve this front end watched, or an earlier local serve found dead: save a report and say so in one line. Never throws. */
export async function recordChildDeath(frontEnd: Surface, what: string, reason: string, log: string, since?: string): Promise<void> {
  try {
    const { childDeathReport, reportedSince } = await import("../core/crash/child.ts");
    const home = reasonixHome();
    // It already wrote its own report on the way down (an unhandled error): one is enough.
    if (since && reportedSince(frontEnd, since, home)) return;
    const path = writeReport(childDeathReport(frontEnd, what, reason, log, localScrubContext(home)), home);
    process.stderr.write(`${what} died; a crash report was saved to ${path} (nothing is sent); review or send it with: reasonix report\n`);
  } catch (e) {
    process.stderr.write(`(could not save a crash report: ${e instanceof Error ? e.message : String(e)})\n`);
  }
}
