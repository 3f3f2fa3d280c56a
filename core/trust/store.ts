// Trust records live in the user's own config.toml, never in a project file:
//
//   [trust.workspaces."/home/me/src/app"]
//   trusted_at = "2026-12-01T10:00:00.000Z"
//   [trust.workspaces."/home/me/src/app".inputs]
//   "reasonix.toml" = "<sha256>"
//
// Edits touch only that workspace's block; the result is re-parsed before
// it is written atomically (0600 for a new file).
import { existsSync, readFileSync, statSync } from "node:fs";
import { UsageError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { isTable } from "../config/validate.ts";
import { parseConfigText } from "../config/parse.ts";
import { splitKey } from "./locate.ts";
import type { ProjectInput } from "./inputs.ts";

export interface TrustRecord {
  workspace: string;
  trustedAt?: string;
  /** Relative input path → approved sha256. */
  inputs: Record<string, string>;
}

/** The records in a loaded (user) config's values. */
export function trustRecords(values: Record<string, unknown>): TrustRecord[] {
  const trust = values.trust;
  if (!isTable(trust) || !isTable(trust.workspaces)) return [];
  const out: TrustRecord[] = [];
  for (const [workspace, rec] of Object.entries(trust.workspaces)) {
    if (!isTable(rec)) continue;
    const inputs: Record<string, string> = {};
    if (isTable(rec.inputs)) for (const [k, v] of Object.entries(rec.inputs)) if (typeof v === "string") inputs[k] = v;
    out.push({ workspace, trustedAt: typeof rec.trusted_at === "string" ? rec.trusted_at : undefined, inputs });
  }
  return out;
}

export const findRecord = (values: Record<string, unknown>, workspace: string): TrustRecord | undefined =>
  trustRecords(values).find((r) => r.workspace === workspace);

const tomlString = (s: string) => JSON.stringify(s);
const headerRe = /^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$/;

/** `text` without the header blocks of `workspace`'s record. */
function withoutBlock(text: string, workspace: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let skipping = false;
  for (const l of lines) {
    const h = headerRe.exec(l);
    if (h) {
      const parts = splitKey(h[1]!);
      skipping = parts.length >= 3 && parts[0] === "trust" && parts[1] === "workspaces" && parts[2] === workspace;
    }
    if (!skipping) out.push(l);
  }
  return out.join("\n");
}

function blockFor(workspace: string, inputs: ProjectInput[], at: string): string {
  const head = `[trust.workspaces.${tomlString(workspace)}]`;
  const lines = [head, `trusted_at = ${tomlString(at)}`, `[trust.workspaces.${tomlString(workspace)}.inputs]`];
  for (const i of inputs) lines.push(`${tomlString(i.rel)} = ${tomlString(i.sha256)}`);
  return lines.join("\n");
}

function writeChecked(configPath: string, after: string, check: (values: Record<string, unknown>) => boolean): void {
  const parsed = parseConfigText(after, configPath, "user", []);
  if (!check(parsed.data)) {
    throw new UsageError(`could not update the trust records in ${configPath} without restructuring the file`, "edit its [trust] section by hand");
  }
  const mode = existsSync(configPath) ? statSync(configPath).mode & 0o777 : 0o600;
  writeFileAtomic(configPath, after.endsWith("\n") ? after : `${after}\n`, { mode, dirMode: 0o700 });
}

/** Record `inputs` (all of the workspace's current inputs) as approved. */
export function recordTrust(configPath: string, workspace: string, inputs: ProjectInput[], now = new Date()): void {
  const before = existsSync(configPath) ? readFileSync(configPath, "utf8") : "";
  const kept = withoutBlock(before, workspace).replace(/\n+$/, "");
  const after = `${kept}${kept ? "\n\n" : ""}${blockFor(workspace, inputs, now.toISOString())}\n`;
  writeChecked(configPath, after, (data) => {
    const rec = findRecord(data, workspace);
    return !!rec && inputs.every((i) => rec.inputs[i.rel] === i.sha256) && Object.keys(rec.inputs).length === inputs.length;
  });
}

/** Approve one input's new content, keeping the workspace's other approvals. */
export function approveInput(configPath: string, workspace: string, rel: string, digest: string, now = new Date()): void {
  const before = existsSync(configPath) ? readFileSync(configPath, "utf8") : "";
  const current = before ? findRecord(parseConfigText(before, configPath, "user", []).data, workspace) : undefined;
  const inputs: ProjectInput[] = Object.entries({ ...(current?.inputs ?? {}), [rel]: digest }).map(([r, sha]) => ({ rel: r, sha256: sha, bytes: 0 }));
  recordTrust(configPath, workspace, inputs, now);
}

/** Forget a workspace. Returns false when it had no record. */
export function revokeTrust(configPath: string, workspace: string): boolean {
  if (!existsSync(configPath)) return false;
  const before = readFileSync(configPath, "utf8");
  const current = parseConfigText(before, configPath, "user", []);
  if (!findRecord(current.data, workspace)) return false;
  const after = withoutBlock(before, workspace).replace(/\n{3,}/g, "\n\n");
  writeChecked(configPath, after, (data) => !findRecord(data, workspace));
  return true;
}
