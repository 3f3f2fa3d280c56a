// Workspace trust: is this workspace's project content approved by the user?
// See policy.ts for what an unapproved project file may still do.
import { realpathSync } from "node:fs";
import { findRecord, type TrustRecord } from "./store.ts";
import { hashInput, listProjectInputs, type ProjectInput } from "./inputs.ts";

export interface InputState extends ProjectInput {
  /** "approved": matches the record; "changed": recorded with other content; "new": never approved. */
  status: "approved" | "changed" | "new";
}

export interface TrustState {
  workspace: string;
  record?: TrustRecord;
  /** True when `--trust-project` approves the current content for this process only. */
  viaFlag: boolean;
}

export function realWorkspace(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

export function trustState(workspace: string, userValues: Record<string, unknown>, viaFlag = false): TrustState {
  return { workspace, record: findRecord(userValues, workspace), viaFlag };
}

/** Is the input at `rel` approved as it is now (or by --trust-project)? */
export function inputTrusted(state: TrustState, rel: string, current = hashInput(state.workspace, rel)): boolean {
  if (!current) return false;
  if (state.viaFlag) return true;
  return state.record?.inputs[rel] === current.sha256;
}

/** Every present input with its approval status (for `reasonix trust` and doctor). */
export function inputStates(state: TrustState): InputState[] {
  return listProjectInputs(state.workspace).map((i) => {
    const approved = state.record?.inputs[i.rel];
    return { ...i, status: approved === i.sha256 ? "approved" : approved ? "changed" : "new" };
  });
}

export { type TrustRecord } from "./store.ts";
export { type IgnoredSetting, formatIgnored, UNTRUSTED } from "./policy.ts";
