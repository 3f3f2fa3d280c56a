// One view of a workspace's trust for every front end: the CLI's `reasonix
// trust`, doctor, the serve API and the chat's /trust.
import { existsSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { join } from "node:path";
import { loadConfig, parseConfigText, projectConfigPath } from "../config/load.ts";
import { inputStates, realWorkspace, type InputState } from "./index.ts";
import { listProjectInputs, sha256 } from "./inputs.ts";
import { restrictProject, type IgnoredSetting } from "./policy.ts";
import { approveInput, recordTrust, revokeTrust, trustRecords } from "./store.ts";

export interface TrustReport {
  workspace: string;
  /** Every present project input is approved as it is now. */
  trusted: boolean;
  /** The workspace has a record at all (some inputs may have changed since). */
  recorded: boolean;
  trustedAt?: string;
  inputs: InputState[];
  /** Settings the project file sets that only approval would let through. */
  loosening: IgnoredSetting[];
  /** Settings that stay ignored even when trusted (providers, user-only keys). */
  neverHonoured: IgnoredSetting[];
}

export function trustReport(dir: string, home = homePaths().home): TrustReport {
  const workspace = realWorkspace(dir);
  // Judged as if unapproved, to list what approval changes.
  const cfg = loadConfig({ cwd: workspace, home, ignoreTrust: true });
  const inputs = inputStates({ workspace, record: cfg.trust.record, viaFlag: false });
  return {
    workspace,
    trusted: !!cfg.trust.record && inputs.every((i) => i.status === "approved"),
    recorded: !!cfg.trust.record,
    trustedAt: cfg.trust.record?.trustedAt,
    inputs,
    loosening: cfg.trust.ignored.filter((i) => i.trustable),
    neverHonoured: cfg.trust.ignored.filter((i) => !i.trustable),
  };
}

/**
 * Whether trustReport(dir) can list settings under `loosening`: loadConfig
 * filters only the project's reasonix.toml, so without that file the answer
 * is no. One stat instead of a config load and hashing every input (the
 * terminal chat asks before its first frame).
 */
export function mayLoosen(dir: string): boolean {
  return existsSync(projectConfigPath(realWorkspace(dir)));
}

/** Approve every current project input of `dir`. */
export function trustWorkspace(dir: string, home = homePaths().home): TrustReport {
  const workspace = realWorkspace(dir);
  recordTrust(homePaths(home).config, workspace, listProjectInputs(workspace));
  return trustReport(workspace, home);
}

export function revokeWorkspace(dir: string, home = homePaths().home): boolean {
  return revokeTrust(homePaths(home).config, realWorkspace(dir));
}

export interface TrustListEntry {
  workspace: string;
  trustedAt?: string;
  /** "current": every input matches; "changed": some input differs or is new; "missing": the folder is gone. */
  status: "current" | "changed" | "missing";
}

export function listTrusted(home = homePaths().home): TrustListEntry[] {
  const cfg = loadConfig({ home, noProject: true });
  return trustRecords(cfg.values).map((r) => {
    let status: TrustListEntry["status"] = "missing";
    if (existsSync(r.workspace) && realWorkspace(r.workspace) === r.workspace) {
      try {
        const inputs = inputStates({ workspace: r.workspace, record: r, viaFlag: false });
        const removed = Object.keys(r.inputs).some((rel) => !inputs.some((i) => i.rel === rel));
        status = inputs.every((i) => i.status === "approved") && !removed ? "current" : "changed";
      } catch (e) {
        // An input that is no longer a regular file (or grew past its limit) is not what was approved.
        if (!(e instanceof ConfigError)) throw e;
        status = "changed";
      }
    }
    return { workspace: r.workspace, trustedAt: r.trustedAt, status };
  });
}

/**
 * Reasonix itself edited the project's reasonix.toml for the user (an
 * "always allow" approval). Keep the approval in step with that edit when
 * the user had approved the old text, or when the old text loosened nothing
 * (then approving the new text approves exactly the rule just granted).
 * Returns false when the rule waits for `reasonix trust`.
 */
export function reapproveOwnEdit(workspaceDir: string, before: string | undefined, after: string, home = homePaths().home): boolean {
  const workspace = realWorkspace(workspaceDir);
  const cfgPath = homePaths(home).config;
  const user = loadConfig({ home, noProject: true }).values;
  const rec = trustRecords(user).find((r) => r.workspace === workspace);
  let clean = before === undefined || rec?.inputs["reasonix.toml"] === sha256(before);
  if (!clean && before !== undefined) {
    const data = parseConfigText(before, join(workspace, "reasonix.toml"), "project", []).data;
    clean = restrictProject({ data, text: before, file: "reasonix.toml", user, workspace, trusted: false }).ignored.every((i) => !i.trustable);
  }
  if (clean) approveInput(cfgPath, workspace, "reasonix.toml", sha256(after));
  return clean;
}
