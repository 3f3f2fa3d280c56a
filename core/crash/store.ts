// Crash reports on disk: $REASONIX_HOME/crash-reports/<id>.json, the directory
// 0700, each file 0600 and written atomically, at most MAX_REPORTS kept (the
// oldest dropped). Everything is scrubbed before it is written.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { reasonixHome } from "../home.ts";
import { SecretStore } from "../secrets/dotenv.ts";
import { buildInfo, platformId } from "../version.ts";
import { reduceStack, scrubContext, scrubText, type ScrubContext } from "./scrub.ts";
import { randomHex } from "../random.ts";

export const MAX_REPORTS = 10;
export const CRASH_SCHEMA = 1;

/** The front ends a report can come from. */
export const SURFACES = ["run", "chat", "serve", "acp", "mcp-serve", "remote", "cli"] as const;
export type Surface = (typeof SURFACES)[number];

export interface CrashReport {
  schema: number;
  id: string;
  createdAt: string;
  version: string;
  commit: string;
  platform: string;
  frontEnd: string;
  errorClass: string;
  message: string;
  stack: string[];
}

export const crashDir = (home = reasonixHome()): string => join(home, "crash-reports");

/** Time to the millisecond (so reports sort in the order they were made), a random suffix; ids without milliseconds are from older versions. */
const ID = /^\d{8}T\d{6}(?:\d{3})?Z-[0-9a-f]{6}$/;

function newReportId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `${stamp}-${randomHex(3)}`;
}

/** The scrub context of this machine: credential variables of the environment plus every value in $REASONIX_HOME/.env. */
export function localScrubContext(home = reasonixHome()): ScrubContext {
  let dotenv: string[] = [];
  try { dotenv = [...new SecretStore(join(home, ".env")).read().values()]; } catch { /* an unreadable .env only means fewer literal matches */ }
  return scrubContext(process.env, dotenv);
}

const errorClassOf = (err: unknown): string => {
  if (err instanceof Error) return /^[A-Za-z_$][\w$]{0,60}$/.test(err.name) ? err.name : err.constructor?.name || "Error";
  return err === null ? "null" : typeof err;
};

const messageOf = (err: unknown): string => {
  if (err instanceof Error) return err.message;
  try { return typeof err === "string" ? err : JSON.stringify(err) ?? String(err); } catch { return String(err); }
};

/** What every report starts with: its id and time, the build, the platform, the front end. */
export function reportHeader(frontEnd: string, now: Date): Pick<CrashReport, "schema" | "id" | "createdAt" | "version" | "commit" | "platform" | "frontEnd"> {
  const info = buildInfo();
  return { schema: CRASH_SCHEMA, id: newReportId(now), createdAt: now.toISOString(), version: info.version, commit: info.commit, platform: platformId(), frontEnd };
}

/** A scrubbed report for `err` thrown in `frontEnd` (not written). */
export function buildReport(err: unknown, frontEnd: string, ctx: ScrubContext, now = new Date()): CrashReport {
  return {
    ...reportHeader(frontEnd, now),
    errorClass: errorClassOf(err),
    message: scrubText(messageOf(err).slice(0, 2000), ctx),
    stack: reduceStack(err instanceof Error ? err.stack : undefined, ctx),
  };
}

/** Run the scrubbers over every text field again (before sending, or on a report edited by hand). */
export function rescrub(r: CrashReport, ctx: ScrubContext): CrashReport {
  return {
    ...r,
    frontEnd: scrubText(String(r.frontEnd), ctx),
    errorClass: scrubText(String(r.errorClass), ctx),
    message: scrubText(String(r.message), ctx),
    stack: (Array.isArray(r.stack) ? r.stack : []).map((l) => scrubText(String(l), ctx)),
  };
}

/** Write `report`, then drop the oldest beyond MAX_REPORTS. Returns the file's path. */
export function writeReport(report: CrashReport, home = reasonixHome()): string {
  const dir = crashDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, `${report.id}.json`);
  writeFileAtomic(path, `${JSON.stringify(report, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
  for (const old of listIds(home).slice(0, -MAX_REPORTS)) {
    try { unlinkSync(join(dir, `${old}.json`)); } catch { /* already gone */ }
  }
  return path;
}

/** Report ids, oldest first. */
export function listIds(home = reasonixHome()): string[] {
  const dir = crashDir(home);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && ID.test(f.slice(0, -5)))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function reportPath(id: string, home = reasonixHome()): string {
  if (!ID.test(id)) throw new ReasonixError("crash_report_not_found", `no crash report "${id}"`, { hint: "reasonix report list" });
  return join(crashDir(home), `${id}.json`);
}

/** Read one report (the newest when `id` is undefined); undefined when there is none. */
export function readReport(id: string | undefined, home = reasonixHome()): CrashReport | undefined {
  const ids = listIds(home);
  const want = id ?? ids.at(-1);
  if (want === undefined) return undefined;
  const path = reportPath(want, home);
  if (!existsSync(path)) throw new ReasonixError("crash_report_not_found", `no crash report "${want}"`, { hint: "reasonix report list" });
  try {
    return JSON.parse(readFileSync(path, "utf8")) as CrashReport;
  } catch (e) {
    throw new ReasonixError("crash_report_invalid", `${path}: not a crash report (${e instanceof Error ? e.message : String(e)})`, { hint: `reasonix report delete ${want}` });
  }
}

export function deleteReport(id: string, home = reasonixHome()): void {
  const path = reportPath(id, home);
  if (!existsSync(path)) throw new ReasonixError("crash_report_not_found", `no crash report "${id}"`, { hint: "reasonix report list" });
  unlinkSync(path);
}
