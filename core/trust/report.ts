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
import { describeInput, describeSettings, needsContent, readForDescription, type InputDescription } from "./describe.ts";
import { ReasonixError } from "../errors.ts";
import { approveInput, recordTrust, revokeTrust, trustRecords } from "./store.ts";

export interface TrustReport {
  workspace: string;
  /** Every present project input is approved as it is now. */
  trusted: boolean;
  /** The workspace has a record at all (some inputs may have changed since). */
  recorded: boolean;
  trustedAt?: string;
  /** Every present input, each with what approving it lets it do (described from the bytes its digest covers). */
  inputs: ReportInput[];
  /** Settings the project file sets that only approval would let through. */
  loosening: IgnoredSetting[];
  /** Settings that stay ignored even when trusted (providers, user-only keys). */
  neverHonoured: IgnoredSetting[];
}

export interface ReportInput extends InputState, InputDescription {}

/** Reads of one file that disagree (it changed while the report was built). */
const CHANGED = Symbol("changed");

function describeState(workspace: string, i: InputState, loosening: IgnoredSetting[], settingsDigest: string | undefined): ReportInput | typeof CHANGED {
  if (i.rel === "reasonix.toml") {
    // The loosening list comes from loadConfig's own read of the file: it must be the content whose digest is shown.
    const read = readForDescription(workspace, i.rel);
    if ("problem" in read || read.sha256 !== i.sha256 || sha256(read.data) !== settingsDigest) return CHANGED;
    return { ...i, ...describeSettings(loosening) };
  }
  if (!needsContent(i.rel)) return { ...i, ...describeInput(i.rel) };
  const read = readForDescription(workspace, i.rel);
  if ("problem" in read) return read.problem.startsWith("larger") ? { ...i, ...describeInput(i.rel, ""), items: [], problem: read.problem } : CHANGED;
  if (read.sha256 !== i.sha256) return CHANGED;
  return { ...i, ...describeInput(i.rel, read.data.toString("utf8")) };
}

const KIND_ORDER: InputDescription["kind"][] = ["hooks", "mcp", "settings", "command", "skill", "other"];

/** How often a report is rebuilt when a file changes under it before giving up. */
const ATTEMPTS = 3;

export function trustReport(dir: string, home = homePaths().home): TrustReport {
  const workspace = realWorkspace(dir);
  let changed = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // Judged as if unapproved, to list what approval changes.
    const cfg = loadConfig({ cwd: workspace, home, ignoreTrust: true });
    const loosening = cfg.trust.ignored.filter((i) => i.trustable);
    const inputs: ReportInput[] = [];
    changed = "";
    for (const state of inputStates({ workspace, record: cfg.trust.record, viaFlag: false })) {
      const d = describeState(workspace, state, loosening, cfg.trust.projectFile?.sha256);
      if (d === CHANGED) {
        changed = state.rel;
        break;
      }
      inputs.push(d);
    }
    if (changed) continue;
    // What can do the most comes first: a long list must not hide a hook below the fold.
    inputs.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    return {
      workspace,
      trusted: !!cfg.trust.record && inputs.every((i) => i.status === "approved"),
      recorded: !!cfg.trust.record,
      trustedAt: cfg.trust.record?.trustedAt,
      inputs,
      loosening,
      neverHonoured: cfg.trust.ignored.filter((i) => !i.trustable),
    };
  }
  throw new ReasonixError("trust_unstable", `${join(workspace, changed)} kept changing while it was read; nothing can be shown for approval`, { hint: "try again once nothing is writing to the project files" });
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

/** Approve every current project input of `dir`, unseen: for tests and scripts. A front end that asks a person uses approveShown (approve.ts). */
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
