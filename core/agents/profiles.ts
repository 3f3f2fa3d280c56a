/**
 * Subagent profiles: skills whose front matter says `runAs: subagent`
 * (core/commands/skills.ts). A profile's instructions, tool list and model
 * become a child request; a project profile is repository content, so it
 * loads only as skills do (workspace trust) and its `model` is ignored — the
 * user picks models (`[agent] subagent_models`).
 */
import type { CommandEntry, CommandRegistry } from "../commands/index.ts";
import { ReasonixError } from "../errors.ts";
import type { ChildRequest } from "./child.ts";

export const isProfile = (e: CommandEntry): boolean => e.kind === "skill" && e.skill?.runAs === "subagent";

/** The profile `/name` reaches, or an error naming why it cannot run. */
export function findProfile(commands: CommandRegistry, name: string): CommandEntry {
  const entry = commands.resolve(name);
  if (entry && isProfile(entry)) return entry;
  const blocked = commands.blocked(name);
  if (blocked && isProfile(blocked)) {
    throw new ReasonixError("subagent_not_loaded", `subagent ${name} (${blocked.path ?? blocked.source}) ${blocked.notLoaded}`, {
      hint: blocked.notLoaded?.includes("reasonix trust") ? "review the file, then run `reasonix trust`" : undefined,
    });
  }
  throw new ReasonixError("subagent_not_found", `no subagent profile named "${name}"`, { hint: "list them with: reasonix subagent list", exitCode: 2 });
}

/** A child request running `entry` on `task`. */
export async function profileRequest(entry: CommandEntry, task: string, o: { readOnly: boolean; depth: number; parent?: ChildRequest["parent"] }): Promise<ChildRequest> {
  if (!task.trim()) throw new ReasonixError("usage", `/${entry.name} needs a task, e.g. /${entry.name} review the last commit`, { exitCode: 2 });
  const instructions = entry.expand ? await entry.expand("", { workspace: "" }) : "";
  return {
    name: entry.name,
    task,
    instructions,
    readOnly: o.readOnly,
    tools: entry.skill?.tools ?? [],
    writePaths: [],
    ...(entry.scope === "user" && entry.model ? { profileModel: entry.model } : {}),
    depth: o.depth,
    ...(o.parent ? { parent: o.parent } : {}),
  };
}

/** What `/name task` leaves in the parent conversation: the task and the child's final answer. */
export function profileResultMessage(name: string, task: string, out: { sessionId?: string; reason: string; answer: string; ok: boolean }): string {
  return [
    `<subagent name="${name}" session="${out.sessionId ?? ""}" status="${out.ok ? "done" : out.reason}">`,
    "<task>", task.trim(), "</task>",
    "<answer>", out.answer.trim() || "(no answer)", "</answer>",
    "</subagent>",
    "The user ran this subagent; relay its answer (briefly, in your words if useful) without redoing its work.",
  ].join("\n");
}
