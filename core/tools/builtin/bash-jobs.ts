/**
 * bash_output and bash_kill: reading and stopping the background jobs `bash`
 * started with run_in_background (core/tools/jobs.ts). Both only touch jobs
 * of this session, which already passed the permission check when they
 * started, so they are session bookkeeping ("meta").
 */
import { bashOutputLimit } from "../../config/limits.ts";
import { runtimeText, statusText, type JobInfo } from "../jobs.ts";
import type { ToolContext, ToolDefinition } from "../types.ts";
import { HeadTail } from "./bash.ts";
import { done, fail, guarded, str } from "./common.ts";

interface OutputInput { job_id: string; filter?: string }
interface KillInput { job_id: string }

const jobIdSchema = { type: "string", description: "the id bash returned when it started the job (job-1, job-2 …)" };

/** The status line a reader sees under the output. */
function stateLine(j: JobInfo): string {
  const dropped = j.dropped > 0 ? `; ${j.dropped} bytes beyond the output cap were not kept` : "";
  return `[${j.id} ${statusText(j)} after ${runtimeText(j)}${dropped}]`;
}

function unknownJob(id: string, ctx: ToolContext): string {
  const ids = ctx.jobs?.list().map((j) => j.id) ?? [];
  return `no background job "${id}" in this session${ids.length ? ` (jobs: ${ids.join(", ")})` : ""}`;
}

export const bashOutputTool: ToolDefinition<OutputInput> = {
  name: "bash_output",
  description:
    "Read a background job's output produced since the last bash_output call for it, with its status (running, exited N, killed). With filter, only lines matching that regular expression are returned; the others are consumed too.",
  inputSchema: {
    type: "object",
    properties: {
      job_id: jobIdSchema,
      filter: { type: "string", description: "a regular expression: return only the new lines that match it" },
    },
    required: ["job_id"],
    additionalProperties: false,
  },
  kind: "meta",
  summarize: (i) => `bash_output ${String(i?.job_id ?? "")}${i?.filter ? ` /${String(i.filter).slice(0, 80)}/` : ""}`,
  run: guarded(async (input, ctx) => {
    const id = str(input, "job_id");
    const pattern = str(input, "filter", { optional: true });
    let filter: RegExp | undefined;
    if (pattern) {
      try {
        filter = new RegExp(pattern);
      } catch (e) {
        return fail(`filter is not a valid regular expression: ${(e as Error).message}`);
      }
    }
    const r = ctx.jobs?.read(id, filter);
    if (!r) return fail(unknownJob(id, ctx));
    const shown = new HeadTail(bashOutputLimit(ctx.config));
    shown.push(r.text.replace(/\n$/, ""));
    const text = shown.text();
    return done([text === "" ? "(no new output)" : text, stateLine(r.job)].join("\n"));
  }),
};

export const bashKillTool: ToolDefinition<KillInput> = {
  name: "bash_kill",
  description: "Stop a background job and everything it started (SIGTERM, then SIGKILL after a short grace). Its remaining output can still be read with bash_output.",
  inputSchema: {
    type: "object",
    properties: { job_id: jobIdSchema },
    required: ["job_id"],
    additionalProperties: false,
  },
  kind: "meta",
  summarize: (i) => `bash_kill ${String(i?.job_id ?? "")}`,
  run: guarded(async (input, ctx) => {
    const id = str(input, "job_id");
    const before = ctx.jobs?.get(id);
    if (!before) return fail(unknownJob(id, ctx));
    if (before.status !== "running") return done(`${id} was not running: ${stateLine(before)}`);
    const after = await ctx.jobs!.kill(id);
    return done(`stopped ${id}: ${stateLine(after!)}`);
  }),
};
