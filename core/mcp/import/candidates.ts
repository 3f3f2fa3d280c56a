/**
 * What `reasonix mcp import` and the web UI's Import offer: every server the
 * other agents' files declare (core/mcp/import/agents.ts), as a user-config
 * entry (convert.ts), listed once when two agents declare the same one, and
 * marked when it cannot be imported (unsupported, a name already taken). Each
 * has an `id` that changes when what it would write changes, so an import
 * request takes exactly the entry the user was shown.
 */
import { createHash } from "node:crypto";
import { cleanName } from "../config.ts";
import { serverNames } from "../edit.ts";
import { agentFiles, findServers, type FoundServer } from "./agents.ts";
import { planImport, type ImportPlan } from "./convert.ts";

export interface Candidate {
  id: string;
  found: FoundServer;
  plan: ImportPlan;
  /** Why it will not be imported (unsupported, a name already in the config). */
  skip?: string;
}

/** The servers found for the user's HOME and the WORKSPACE, against the user config FILE. */
export function importCandidates(home: string, workspace: string, file: string): { list: Candidate[]; problems: string[] } {
  const taken = new Set(serverNames(file));
  const { servers, problems } = findServers(agentFiles(home, workspace));
  const list: Candidate[] = [];
  const byName = new Map<string, Candidate>();
  for (const f of servers) {
    let name = cleanName(f.name);
    const same = byName.get(name);
    const target = (x: FoundServer) => JSON.stringify([x.type, x.command, x.args, x.url]);
    // The same server in two agents is listed once; a different one under the same name gets the agent's name added.
    if (same && target(same.found) === target(f)) continue;
    if (same) name = cleanName(`${f.name}-${f.agent.split(" ")[0]!.toLowerCase()}`);
    const plan = planImport(f, name);
    // The id covers what would be written (secrets by name only) and where it came from.
    const id = createHash("sha256").update(JSON.stringify([f.agent, f.file, !!f.project, plan.server, Object.keys(plan.secrets)])).digest("hex").slice(0, 16);
    const c: Candidate = { id, found: f, plan, skip: plan.unsupported ?? (taken.has(name) ? "already in your config" : undefined) };
    byName.set(name, c);
    list.push(c);
  }
  return { list, problems };
}

export const candidateTarget = (c: Candidate) => (c.plan.server.type === "stdio" ? [c.plan.server.command, ...(c.plan.server.args ?? [])].join(" ") : c.plan.server.url ?? "");

/** What a listing shows of a candidate (secrets by variable name only). */
export const candidateRow = (c: Candidate) => ({
  id: c.id,
  name: c.plan.server.name,
  type: c.plan.server.type,
  target: candidateTarget(c),
  agent: c.found.agent,
  file: c.found.file,
  secrets: Object.keys(c.plan.secrets),
  project: !!c.found.project,
  ...(c.skip ? { skip: c.skip } : {}),
});
