/**
 * What a typed message becomes before it reaches the model: `/name args`
 * runs through the registry (unknown names stay literal text, so a path such
 * as `/usr/bin` is never a command); a listed entry that may not run is an
 * error naming the file and why.
 */
import { ReasonixError } from "../errors.ts";
import type { CommandRegistry } from "./registry.ts";
import type { CommandEntry, ExpandContext } from "./types.ts";

export interface SlashInput {
  name: string;
  args: string;
}

/** `/name rest…` at the start of the text, if it has that shape. */
export function parseSlash(text: string): SlashInput | undefined {
  const m = /^\/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: (m[2] ?? "").trim() } : undefined;
}

export interface Expansion {
  content: string;
  /** The entry that produced it, when the text was a command. */
  entry?: CommandEntry;
}

export async function expandCommand(reg: CommandRegistry, text: string, ctx: ExpandContext): Promise<Expansion> {
  const slash = parseSlash(text);
  if (!slash) return { content: text };
  const entry = reg.resolve(slash.name);
  if (!entry) {
    const blocked = reg.blocked(slash.name);
    if (blocked) {
      throw new ReasonixError("command_not_loaded", `/${slash.name} (${blocked.path ?? blocked.source}) ${blocked.notLoaded}`, {
        hint: blocked.notLoaded?.includes("reasonix trust") ? "review the file, then run `reasonix trust`" : undefined,
      });
    }
    return { content: text };
  }
  if (!entry.expand) return { content: text };
  return { content: await entry.expand(slash.args, ctx), entry };
}
