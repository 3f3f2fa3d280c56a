/**
 * Skills: folders holding a `SKILL.md` (front matter `name`, `description`,
 * optional `invocation: auto|manual`, `runAs: inline|subagent`, `tools`,
 * `model`). Only a one-line index of the `auto` skills rides in the
 * conversation's first message; a skill's body reaches the model when it is
 * run (`run_skill` tool or `/<skill> args`), as a message or tool result —
 * never in the system prompt or the tool schemas, so the cached prefix holds.
 */
import { dirname, join, resolve, sep } from "node:path";
import { errorMessage } from "../errors.ts";
import { listFiles, readInput, type Origin } from "./files.ts";
import { fmList, fmString, parseFrontMatter } from "./frontmatter.ts";
import type { CommandEntry, SkillMeta } from "./types.ts";

export interface SkillRoot {
  dir: string;
  origin: Origin;
}

export interface SkillFilter {
  /** Absolute folders whose skills are skipped ([skills] excluded_paths). */
  excluded?: string[];
  /** Skill names listed but not loaded ([skills] disabled_skills). */
  disabled?: string[];
}

const within = (p: string, root: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** The message (or tool result) that carries a skill's instructions to the model. */
export function skillMessage(name: string, dir: string, body: string, args: string): string {
  const a = args.trim();
  return [`<skill name="${name}" dir="${dir}">`, body.trim(), "</skill>", ...(a ? ["", `Arguments: ${a}`] : [])].join("\n");
}

function meta(data: Record<string, unknown>, file: string): SkillMeta {
  const inv = fmString(data.invocation as never) ?? "auto";
  const run = fmString((data.runas ?? data["run-as"]) as never) ?? "inline";
  if (inv !== "auto" && inv !== "manual") throw new Error(`${file}: invocation must be auto or manual, not ${JSON.stringify(inv)}`);
  if (run !== "inline" && run !== "subagent") throw new Error(`${file}: runAs must be inline or subagent, not ${JSON.stringify(run)}`);
  const tools = fmList(data.tools as never);
  return { invocation: inv, runAs: run, ...(tools ? { tools } : {}) };
}

/** Every skill under the roots, in root order (a later root's same name is a collision the registry resolves). */
export function loadSkills(roots: SkillRoot[], filter: SkillFilter = {}): CommandEntry[] {
  const excluded = (filter.excluded ?? []).map((p) => resolve(p));
  const out: CommandEntry[] = [];
  for (const root of roots) {
    for (const rel of listFiles(root.dir, (n) => n === "SKILL.md")) {
      const path = join(root.dir, rel);
      const dir = dirname(path);
      if (excluded.some((x) => within(dir, x))) continue;
      const folder = rel.includes("/") ? rel.split("/").slice(-2, -1)[0]! : "";
      const base: CommandEntry = { name: folder || "skill", description: "", kind: "skill", scope: root.origin.scope, source: path, path };
      try {
        const read = readInput(path, root.origin);
        const fm = parseFrontMatter(read.text, path);
        const name = (fmString(fm.data.name) ?? folder).trim() || folder;
        if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(name)) throw new Error(`${path}: skill name ${JSON.stringify(name)} must be letters, digits, _ . : -`);
        const entry: CommandEntry = {
          ...base,
          name,
          description: fmString(fm.data.description) ?? "",
          argumentHint: fmString(fm.data["argument-hint"]),
          ...(fm.data.model !== undefined ? { model: fmString(fm.data.model) } : {}),
          skill: meta(fm.data, path),
        };
        if (!entry.argumentHint) delete entry.argumentHint;
        if (read.refused) out.push({ ...entry, notLoaded: read.refused });
        else if (filter.disabled?.includes(name)) out.push({ ...entry, notLoaded: "not loaded: disabled by [skills] disabled_skills" });
        else out.push({ ...entry, expand: (args: string) => skillMessage(name, dir, fm.body, args) });
      } catch (e) {
        out.push({ ...base, notLoaded: `not loaded: ${errorMessage(e)}` });
      }
    }
  }
  return out;
}

/** The one-line-per-skill index of what the model may run with `run_skill` (null when there is none). */
export function skillIndex(entries: CommandEntry[]): string | null {
  const auto = entries.filter((e) => e.kind === "skill" && !e.notLoaded && e.skill?.invocation !== "manual").sort((a, b) => a.name.localeCompare(b.name));
  if (auto.length === 0) return null;
  const lines = auto.map((e) => `- ${e.name}: ${e.description.replace(/\s+/g, " ").trim().slice(0, 200)}`);
  return `<skills>\nSkills you can load with the run_skill tool when a task matches one (the user may also type /<name>):\n${lines.join("\n")}\n</skills>`;
}
