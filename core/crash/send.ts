// Sending a crash report: scrub again, POST it as JSON to the configured
// endpoint, delete the local copy only after a 2xx.
import { ReasonixError } from "../errors.ts";
import { reasonixHome } from "../home.ts";
import { deleteReport, localScrubContext, readReport, rescrub, type CrashReport } from "./store.ts";

export { DEFAULT_CRASH_ENDPOINT } from "./endpoint.ts";
const SEND_TIMEOUT_MS = 15_000;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The endpoint to use: https anywhere, plain http only to this machine. */
export function checkEndpoint(raw: string): URL {
  let url: URL;
  try { url = new URL(raw); } catch { throw new ReasonixError("crash_endpoint", `[report] endpoint "${raw}" is not a URL`); }
  if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname))) return url;
  throw new ReasonixError("crash_endpoint", `[report] endpoint "${raw}": only https (or http to 127.0.0.1) is allowed`);
}

/** What leaves the machine: the report scrubbed once more with this machine's secrets. */
export function payloadFor(report: CrashReport, home = reasonixHome()): CrashReport {
  return rescrub(report, localScrubContext(home));
}

export interface SendResult { id: string; endpoint: string; status: number }

/** Send report `id` (the newest when undefined); throws (and keeps the report) unless the collector answers 2xx. */
export async function sendReport(id: string | undefined, endpoint: string, home = reasonixHome()): Promise<SendResult> {
  const url = checkEndpoint(endpoint);
  const report = readReport(id, home);
  if (!report) throw new ReasonixError("crash_report_not_found", "no crash reports to send");
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payloadFor(report, home)),
      redirect: "error",
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
  } catch (e) {
    throw new ReasonixError("crash_send_failed", `could not send crash report ${report.id} to ${url.origin}: ${e instanceof Error ? e.message : String(e)}`, { hint: "the report is kept; try again later" });
  }
  if (res.status < 200 || res.status > 299) {
    throw new ReasonixError("crash_send_failed", `${url.origin} refused crash report ${report.id} (HTTP ${res.status})`, { hint: "the report is kept; try again later" });
  }
  deleteReport(report.id, home);
  return { id: report.id, endpoint: url.href, status: res.status };
}
