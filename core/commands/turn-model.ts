/**
 * The `model:` front matter of a custom command or skill: `/name args` runs
 * that one turn on the named provider entry. Models are the user's: a
 * project command may pick one only while the workspace trusts its content
 * (otherwise the field is ignored with a warning); a name that is not one of
 * the configured provider entries is an error naming the file and the field.
 */
import { ReasonixError } from "../errors.ts";
import type { CommandEntry } from "./types.ts";

export interface TurnModel {
  /** The provider entry the turn runs on. */
  name?: string;
  /** Why the field was ignored, for the user. */
  warning?: string;
}

export interface TurnModelOptions {
  /** The configured provider entry names. */
  models: string[];
  /** Is this project entry's file approved as it is now (`reasonix trust`, `--trust-project`)? */
  trusted(entry: CommandEntry): boolean;
}

export function turnModelFor(entry: CommandEntry | undefined, o: TurnModelOptions): TurnModel | undefined {
  const wanted = entry?.model?.trim();
  if (!entry || entry.model === undefined) return undefined;
  const file = entry.path ?? entry.source;
  if (entry.scope === "project" && !o.trusted(entry)) {
    return { warning: `${file}: model "${wanted}" ignored: a project command may choose the model only in a trusted workspace (review it, then run \`reasonix trust\`)` };
  }
  if (!wanted || !o.models.includes(wanted)) {
    throw new ReasonixError("command_model", `${file}: model: unknown model ${JSON.stringify(entry.model)} (configured provider entries: ${o.models.join(", ") || "none"})`, {
      hint: "set model to the name of a [[providers]] entry, or remove the field",
    });
  }
  return { name: wanted };
}
