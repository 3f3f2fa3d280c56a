/**
 * Persist an approval into the project `reasonix.toml` as a `[permissions]
 * allow` entry, editing lines so comments and layout survive. The result is
 * re-parsed before it is written (atomically); a file we cannot edit safely
 * is left alone with an error saying so.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { parse, stringify } from "smol-toml";
import { setInText } from "../config/edit.ts";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";

const tomlString = (s: string) => stringify({ v: s }).trim().replace(/^v\s*=\s*/, "");

function currentList(data: Record<string, unknown>, key: string): string[] {
  const perms = data.permissions;
  if (perms === undefined) return [];
  if (typeof perms !== "object" || perms === null || Array.isArray(perms)) throw new Error("[permissions] is not a table");
  const v = (perms as Record<string, unknown>)[key];
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new Error(`permissions.${key} is not a list of strings`);
  return v as string[];
}

/** Insert into a multi-line `key = [ ... ]` array inside [permissions]; null when not found. */
function appendToMultilineArray(text: string, key: string, item: string): string | null {
  const lines = text.split("\n");
  let inPerms = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const header = /^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$/.exec(l);
    if (header) { inPerms = header[1]!.replace(/\s/g, "") === "permissions"; continue; }
    if (/^\s*\[\[/.test(l)) { inPerms = false; continue; }
    if (!inPerms) continue;
    const m = new RegExp(`^(\\s*)${key}\\s*=\\s*\\[(.*)$`).exec(l);
    if (!m) continue;
    if (m[2]!.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, "").includes("]")) return null; // one-line array
    // Only handle the layout where the closing bracket sits on its own line.
    for (let j = i + 1; j < lines.length; j++) {
      const close = /^(\s*)\](.*)$/.exec(lines[j]!);
      if (!close) continue;
      let prev = j - 1;
      while (prev > i && (lines[prev]!.trim() === "" || lines[prev]!.trim().startsWith("#"))) prev--;
      const indent = prev > i ? /^(\s*)/.exec(lines[prev]!)![1]! : `${m[1]}  `;
      if (prev > i && !/,\s*(#.*)?$/.test(lines[prev]!)) {
        lines[prev] = lines[prev]!.replace(/(\s*)(#.*)?$/, (_a, sp: string, c: string | undefined) => `,${sp}${c ?? ""}`);
      } else if (prev === i && m[2]!.trim() !== "" && !/,\s*(#.*)?$/.test(m[2]!)) {
        return null;
      }
      lines.splice(j, 0, `${indent}${tomlString(item)},`);
      return lines.join("\n");
    }
    return null;
  }
  return null;
}

/** What a persist changed: the file's text before (undefined when it was absent) and after. */
export interface PersistedEdit {
  path: string;
  before: string | undefined;
  after: string;
}

/** Append RULE to `[permissions] <key>` in the TOML file at PATH (created when missing). Undefined when it was already there. */
export function persistRule(path: string, rule: string, key: "allow" | "ask" | "deny" = "allow"): PersistedEdit | undefined {
  const existed = existsSync(path);
  const before = existed ? readFileSync(path, "utf8") : "";
  let data: Record<string, unknown>;
  let list: string[];
  try {
    data = parse(before) as Record<string, unknown>;
    list = currentList(data, key);
  } catch (e) {
    throw new ReasonixError("permissions-persist", `cannot add ${rule} to ${path}: ${(e as Error).message}`, {
      hint: "fix the file, or add the rule to [permissions] by hand",
    });
  }
  if (list.includes(rule)) return undefined;
  const want = [...list, rule];
  const candidates = [appendToMultilineArray(before, key, rule), setInText(before, `permissions.${key}`, want)];
  for (const after of candidates) {
    if (after === null) continue;
    let ok = false;
    try {
      const back = currentList(parse(after) as Record<string, unknown>, key);
      ok = JSON.stringify(back) === JSON.stringify(want);
    } catch {
      ok = false;
    }
    if (!ok) continue;
    const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
    writeFileAtomic(path, after, { mode });
    return { path, before: existed ? before : undefined, after };
  }
  throw new ReasonixError("permissions-persist", `could not add ${rule} to [permissions] ${key} in ${path} without restructuring the file`, {
    hint: `add "${rule}" to [permissions] ${key} by hand`,
  });
}

/** Take RULE out of `[permissions] <key>` in the TOML file at PATH. Undefined when it was not there. */
export function removeRule(path: string, rule: string, key: "allow" | "ask" | "deny" = "allow"): PersistedEdit | undefined {
  if (!existsSync(path)) return undefined;
  const before = readFileSync(path, "utf8");
  let list: string[];
  try {
    list = currentList(parse(before) as Record<string, unknown>, key);
  } catch (e) {
    throw new ReasonixError("permissions-persist", `cannot remove ${rule} from ${path}: ${(e as Error).message}`, { hint: "fix the file, or edit [permissions] by hand" });
  }
  if (!list.includes(rule)) return undefined;
  const want = list.filter((r) => r !== rule);
  const after = setInText(before, `permissions.${key}`, want);
  let back: string[] | undefined;
  try {
    back = currentList(parse(after) as Record<string, unknown>, key);
  } catch {}
  if (JSON.stringify(back) !== JSON.stringify(want)) {
    throw new ReasonixError("permissions-persist", `could not remove ${rule} from [permissions] ${key} in ${path} without restructuring the file`, { hint: `remove "${rule}" from [permissions] ${key} by hand` });
  }
  writeFileAtomic(path, after, { mode: statSync(path).mode & 0o777 });
  return { path, before, after };
}
