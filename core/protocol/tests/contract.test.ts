// The session and engine contracts have one real implementation each (the
// engine's LiveSession and createEngine): every member is required, so a
// wrapper or a second implementation that leaves one out fails to
// type-check instead of dropping a capability silently (as the old /web
// wrapper dropped the model switch).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { repoRoot } from "../../../scripts/lib/imports.ts";

const CONTRACTS: Record<string, string[]> = {
  "core/protocol/contract.ts": ["EngineSession", "Engine", "GoalControl"],
  "core/engine/types.ts": ["Engine", "EngineMemory"],
};

/** "Interface.member" for each optional member (`x?:` or `x?()`) of the named interfaces in `text`. */
export function optionalMembers(text: string, names: string[]): string[] {
  const src = ts.createSourceFile("contract.ts", text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const seen = new Set<string>();
  src.forEachChild((n) => {
    if (!ts.isInterfaceDeclaration(n) || !names.includes(n.name.text)) return;
    seen.add(n.name.text);
    for (const m of n.members) if (m.questionToken && m.name) found.push(`${n.name.text}.${m.name.getText(src)}`);
  });
  for (const name of names) if (!seen.has(name)) found.push(`${name}: no such interface`);
  return found;
}

test("the session and engine contracts have no optional members", () => {
  const found = Object.entries(CONTRACTS).flatMap(([file, names]) => optionalMembers(readFileSync(join(repoRoot, file), "utf8"), names).map((m) => `${file}: ${m}`));
  expect(found).toEqual([]);
});

test("an optional method or property is found; a required one and an optional parameter are not", () => {
  const text = "interface Engine { a(): void; b?(id: string): string; readonly c?: { n: number }; d(x?: number): void }";
  expect(optionalMembers(text, ["Engine"])).toEqual(["Engine.b", "Engine.c"]);
  expect(optionalMembers(text, ["Missing"])).toEqual(["Missing: no such interface"]);
});
