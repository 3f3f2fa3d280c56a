/**
 * Custom commands: Markdown prompt templates under `.reasonix/commands/`
 * (project) and `$REASONIX_HOME/commands/` (user). `review.md` is `/review`,
 * `git/commit.md` is `/git:commit`. Front matter: `description`,
 * `argument-hint`, `model`, `allowed-tools`.
 */
import { join } from "node:path";
import { errorMessage } from "../errors.ts";
import { expandTemplate } from "./args.ts";
import { listFiles, readInput, type Origin } from "./files.ts";
import { fmList, fmString, parseFrontMatter } from "./frontmatter.ts";
import type { CommandEntry } from "./types.ts";

/** Name of the command a file under the commands folder defines. */
export const commandName = (rel: string): string => rel.replace(/\.md$/i, "").split("/").join(":");

const firstLine = (body: string): string => body.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find(Boolean)?.slice(0, 100) ?? "";

/** Every command in `dir` (absent folder: none). Broken or untrusted files are listed with `notLoaded`. */
export function loadCommandDir(dir: string, origin: Origin): CommandEntry[] {
  return listFiles(dir, (n) => n.toLowerCase().endsWith(".md")).map((rel) => {
    const path = join(dir, rel);
    const base: CommandEntry = { name: commandName(rel), description: "", kind: "command", scope: origin.scope, source: path, path };
    try {
      const read = readInput(path, origin);
      const fm = parseFrontMatter(read.text, path);
      const entry: CommandEntry = {
        ...base,
        description: fmString(fm.data.description) ?? firstLine(fm.body),
        ...(fm.data["argument-hint"] !== undefined ? { argumentHint: fmString(fm.data["argument-hint"]) } : {}),
        ...(fm.data.model !== undefined ? { model: fmString(fm.data.model) } : {}),
        ...(fm.data["allowed-tools"] !== undefined ? { allowedTools: fmList(fm.data["allowed-tools"]) } : {}),
      };
      if (read.refused) return { ...entry, notLoaded: read.refused };
      const body = fm.body;
      return { ...entry, expand: (args: string) => expandTemplate(body, args) };
    } catch (e) {
      return { ...base, notLoaded: `not loaded: ${errorMessage(e)}` };
    }
  });
}

export const userCommandsDir = (home: string): string => join(home, "commands");
export const projectCommandsDir = (workspace: string): string => join(workspace, ".reasonix", "commands");
