// A report for a server process that died (the remote serve a supervisor
// watches, a local serve killed outright and found by the next one): its
// exception, if any, happened in another process, so the report holds what
// this side saw — why the child was declared dead, the last error line
// and stack frames of its log — through the same scrubbers as any report.
import { reduceStack, scrubText, type ScrubContext } from "./scrub.ts";
import { listIds, readReport, reportHeader, type CrashReport } from "./store.ts";

/** The last line of LOG that names an error (`TypeError: …`, `error: …`), if any. */
export function lastErrorLine(log: string): string | undefined {
  return log.split("\n").map((l) => l.trim()).filter((l) => /^([A-Za-z_$][\w$]*Error\b|error:|panic\b|Uncaught\b)/.test(l)).at(-1);
}

export function childDeathReport(frontEnd: string, what: string, reason: string, log: string, ctx: ScrubContext, now = new Date()): CrashReport {
  const last = lastErrorLine(log);
  return {
    ...reportHeader(frontEnd, now),
    errorClass: "ChildDied",
    message: scrubText(`${what} died (${reason})${last ? `; its log ends with: ${last}` : ""}`.slice(0, 2000), ctx),
    stack: reduceStack(log, ctx),
  };
}

/** A report from FRONTEND created at or after SINCE (ISO time) is kept here. */
export function reportedSince(frontEnd: string, since: string, home: string): boolean {
  return listIds(home).some((id) => {
    try {
      const r = readReport(id, home);
      return r?.frontEnd === frontEnd && r.createdAt >= since;
    } catch {
      return false;
    }
  });
}
