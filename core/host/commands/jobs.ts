// /jobs: the background shell jobs of the open session (bash run_in_background).
import { runtimeText, statusText } from "../../tools/jobs.ts";
import { registerCommand, result } from "./registry.ts";

/** One line of a command, shortened for a listing. */
const short = (command: string, max = 60): string => {
  const one = command.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

registerCommand({
  name: "jobs",
  execute: (ctx) => {
    const jobs = ctx.host.session.listJobs();
    if (jobs.length === 0) return result("jobs", ["No background jobs in this session (the agent starts them with bash run_in_background)."]);
    const now = Date.now();
    const rows = jobs.map((j) => ({ id: j.id, status: statusText(j), runtime: runtimeText(j, now), command: short(j.command) }));
    const w = (k: "id" | "status" | "runtime") => Math.max(k.length, ...rows.map((r) => r[k].length));
    const line = (r: { id: string; status: string; runtime: string; command: string }) =>
      `  ${r.id.padEnd(w("id"))}  ${r.status.padEnd(w("status"))}  ${r.runtime.padEnd(w("runtime"))}  ${r.command}`;
    const running = jobs.filter((j) => j.status === "running").length;
    return result("jobs", [`Background jobs (${running} running)`, line({ id: "id", status: "status", runtime: "runtime", command: "command" }), ...rows.map(line)], {
      data: { jobs: jobs.map(({ id, command, status, exitCode, signal, startedAt, endedAt }) => ({ id, command, status, exitCode, signal, startedAt, ...(endedAt ? { endedAt } : {}) })) },
    });
  },
});
