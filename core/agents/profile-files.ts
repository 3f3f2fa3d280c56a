/**
 * Subagent profile files for `reasonix subagent create|edit|delete`: a skill
 * folder `<root>/<name>/SKILL.md` whose front matter says `runAs: subagent`
 * and `invocation: manual`. Project scope: `<workspace>/.reasonix/skills`
 * (repository content: it loads only once the workspace is trusted, like any
 * project skill); global scope: `$REASONIX_HOME/skills`. The editors touch
 * only files of that plain shape, never richer hand-written skills.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { InputRefused, readRegularFile } from "../fs/bounded-read.ts";
import { join } from "node:path";
import { fmList, fmString, parseFrontMatter } from "../commands/frontmatter.ts";
import { MAX_BYTES } from "../commands/files.ts";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";

export type ProfileScope = "project" | "global";

export interface ProfileFields {
  description: string;
  prompt: string;
  tools?: string[];
  model?: string;
}

const KNOWN = new Set(["name", "description", "runas", "invocation", "tools", "model"]);
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export const profileDir = (scope: ProfileScope, o: { workspace: string; home: string }): string =>
  scope === "project" ? join(o.workspace, ".reasonix", "skills") : join(o.home, "skills");

export function checkName(name: string): void {
  if (!NAME.test(name)) throw new ReasonixError("usage", `subagent name ${JSON.stringify(name)} must be letters, digits, _ . - (starting with a letter or digit)`, { exitCode: 2 });
}

const quote = (s: string) => JSON.stringify(s);

export function renderProfile(name: string, f: ProfileFields): string {
  const lines = ["---", `name: ${name}`, `description: ${quote(f.description.replace(/\s+/g, " ").trim())}`, "runAs: subagent", "invocation: manual"];
  if (f.tools && f.tools.length > 0) lines.push(`tools: [${f.tools.map((t) => (/[,\[\]"']/.test(t) ? quote(t) : t)).join(", ")}]`);
  if (f.model) lines.push(`model: ${quote(f.model)}`);
  lines.push("---", f.prompt.trim(), "");
  return lines.join("\n");
}

/** Read a profile file the editors may rewrite; refuses richer skills (extra keys, extra files). */
export function readProfile(path: string): ProfileFields {
  let text: string;
  try {
    text = readRegularFile(path, MAX_BYTES, "a skill file").toString("utf8");
  } catch (e) {
    if (e instanceof InputRefused) throw new ReasonixError("subagent_edit", e.message, { exitCode: 2 });
    throw e;
  }
  const fm = parseFrontMatter(text, path);
  const extra = Object.keys(fm.data).filter((k) => !KNOWN.has(k) && k !== "run-as");
  if (fmString(fm.data.runas ?? fm.data["run-as"]) !== "subagent") throw new ReasonixError("subagent_edit", `${path} is not a subagent profile (runAs: subagent)`, { exitCode: 2 });
  if (extra.length > 0) throw new ReasonixError("subagent_edit", `${path} has front matter the profile editor does not manage (${extra.join(", ")})`, { hint: "edit that skill file by hand", exitCode: 2 });
  const tools = fmList(fm.data.tools);
  const model = fmString(fm.data.model);
  return { description: fmString(fm.data.description) ?? "", prompt: fm.body, ...(tools ? { tools } : {}), ...(model ? { model } : {}) };
}

export function profilePath(scope: ProfileScope, name: string, o: { workspace: string; home: string }): string {
  return join(profileDir(scope, o), name, "SKILL.md");
}

/** Where a profile of this name lives: project first (it wins the name), then global. */
export function findProfileFile(name: string, o: { workspace: string; home: string }, scope?: ProfileScope): { scope: ProfileScope; path: string } | undefined {
  for (const s of scope ? [scope] : (["project", "global"] as const)) {
    const p = profilePath(s, name, o);
    if (existsSync(p)) return { scope: s, path: p };
  }
  return undefined;
}

export function writeProfile(path: string, name: string, f: ProfileFields): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o755 });
  writeFileAtomic(path, renderProfile(name, f), { mode: 0o644 });
}

/** Delete a profile folder; refuses one holding more than its SKILL.md (scripts, references). */
export function deleteProfile(path: string): void {
  readProfile(path);
  const dir = join(path, "..");
  const others = readdirSync(dir).filter((f) => f !== "SKILL.md");
  if (others.length > 0) throw new ReasonixError("subagent_edit", `${dir} holds more than the profile (${others.join(", ")})`, { hint: "remove that skill folder by hand", exitCode: 2 });
  rmSync(dir, { recursive: true, force: true });
}
