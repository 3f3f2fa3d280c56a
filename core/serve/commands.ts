// The command catalog and @-completion for the web UI: the same registry
// (core/commands) and completion function (core/engine/references.ts) the
// terminal chat, ACP and `reasonix run` use.
import { realpathSync } from "node:fs";
import { loadConfig } from "../config/load.ts";
import { workspaceCommands, type CommandEntry, type CommandSource } from "../commands/index.ts";
import { sessionCommandSource } from "../commands/session-commands.ts";
import { appendNote, notedMessage, parseNote } from "../commands/note.ts";
import { ApiError } from "./api-error.ts";
import { completeReference } from "../engine/references.ts";
import { createPathPolicy } from "../policy/paths.ts";
import { reasonixHome } from "../home.ts";

export interface CommandView {
  name: string;
  description: string;
  argumentHint?: string;
  kind: CommandEntry["kind"];
  scope: CommandEntry["scope"];
  source: string;
}

const view = (e: CommandEntry): CommandView => ({
  name: e.name,
  description: e.description,
  ...(e.argumentHint ? { argumentHint: e.argumentHint } : {}),
  kind: e.kind,
  scope: e.scope,
  source: e.source,
});

/** `engineSources`: the live engine's catalog sources (MCP prompts, listed as servers come up). */
export function commandsApi(workspace: () => string, home?: string, engineSources: () => CommandSource[] = () => []) {
  const root = () => realpathSync(workspace());
  return {
    /** GET /api/commands: what `/` offers, what was shadowed, what is listed but not loaded. */
    catalog() {
      const ws = root();
      const h = home ?? reasonixHome();
      const reg = workspaceCommands({ workspace: ws, home: h, values: loadConfig({ cwd: ws, home: h }).values });
      // /compact and /mcp: the web UI runs them on the open session (POST /api/sessions/:id/command).
      reg.registerSource(sessionCommandSource);
      for (const s of engineSources()) reg.registerSource(s);
      const cat = reg.catalog();
      return {
        commands: cat.entries.map(view),
        shadowed: cat.shadowed.map((s) => ({ ...view(s.entry), by: s.by.source, ...(s.reachableAs ? { reachableAs: s.reachableAs } : {}) })),
        notLoaded: cat.notLoaded.map((e) => ({ ...view(e), reason: e.notLoaded })),
      };
    },
    /** POST /api/note {text}: `#note` typed in the prompt box, after the UI asked (core/commands/note.ts). */
    note(text: string) {
      const note = parseNote(text);
      if (note === undefined) throw new ApiError(400, "not_a_note", '"text" must be # followed by a one-line note');
      const t = appendNote(root(), note);
      return { path: t.rel, created: !t.exists, message: notedMessage(t) };
    },
    /** GET /api/complete?prefix=@src/: one directory level, .gitignore respected. */
    complete(prefix: string) {
      const ws = root();
      return { items: completeReference(ws, prefix.startsWith("@") ? prefix : `@${prefix}`, createPathPolicy({ cwd: ws, reasonixHome: home })) };
    },
  };
}
