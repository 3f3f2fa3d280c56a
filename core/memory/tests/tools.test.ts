// The memory tools through the real permission gate and store: what needs a prompt in
// each mode, secrets asking even in auto, deny rules holding in yolo, headless failing
// closed, and the tools' own effects on the fact files.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionGate } from "../../engine/permission-gate.ts";
import type { PermissionMode } from "../../engine/types.ts";
import { createPathPolicy } from "../../policy/paths.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { MemoryStore } from "../store.ts";
import { FREE_FACT_CHARS, memoryTools } from "../tools.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-memtools-")));
  roots.push(root);
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const store = new MemoryStore(join(root, "home"), workspace);
  const [remember, forget, recall] = memoryTools(store) as [ToolDefinition, ToolDefinition, ToolDefinition];
  const gate = (mode: PermissionMode, o: { headless?: boolean; allow?: string[]; deny?: string[] } = {}) =>
    createPermissionGate({ mode, allow: o.allow ?? [], ask: [], deny: o.deny ?? [], headless: !!o.headless, workspace, pathPolicy: createPathPolicy({ config: {}, cwd: workspace }), projectConfigPath: join(workspace, "reasonix.toml") });
  return { store, remember, forget, recall, gate };
}

const SECRET = "the staging deploy key is API_KEY=abc123def456ghi";

test("ask mode: only a new, short, non-secret project/reference fact goes without a prompt", () => {
  const { store, remember, forget, gate } = setup();
  const g = gate("ask");
  const action = (tool: ToolDefinition, input: unknown) => g.check(tool, input).action;
  expect(action(remember, { text: "tests need docker compose up first" })).toBe("allow");
  expect(action(remember, { text: "staging is at stage.example.com", type: "reference" })).toBe("allow");
  expect(action(remember, { text: "I prefer pnpm", type: "user" })).toBe("ask");
  expect(action(remember, { text: "be terse", type: "feedback" })).toBe("ask");
  expect(action(remember, { text: "node 22 everywhere", scope: "global" })).toBe("ask");
  expect(action(remember, { text: "x".repeat(FREE_FACT_CHARS + 1) })).toBe("ask");
  expect(action(remember, { text: "changed", id: "some-fact", revision: 1 })).toBe("ask");
  expect(action(forget, { id: "some-fact" })).toBe("ask");
  const secret = g.check(remember, { text: SECRET });
  expect(secret.action).toBe("ask");
  expect(secret.reason).toContain("looks like it holds a secret (a credential assignment (API_KEY))");
  store.create({ text: "Tests need docker compose up first", type: "project", scope: "project" });
  const dup = g.check(remember, { text: "tests need  docker compose up first" });
  expect([dup.action, dup.reason.includes("repeats the fact tests-need-docker-compose-up-")]).toEqual(["ask", true]);
});

test("auto mode asks only for secrets (an allow rule does not cover one); yolo skips that prompt but deny rules hold", () => {
  const { remember, forget, gate } = setup();
  const auto = gate("auto", { allow: ["remember"] });
  expect(auto.check(remember, { text: "node 22 everywhere", scope: "global" }).action).toBe("allow");
  expect(auto.check(forget, { id: "x" }).action).toBe("allow");
  expect(auto.check(remember, { text: SECRET }).action).toBe("ask");
  expect(auto.check(remember, { text: "the password is hunter2" }).action).toBe("ask");
  const yolo = gate("yolo", { deny: ["forget"] });
  expect(yolo.check(remember, { text: SECRET }).action).toBe("allow");
  expect(yolo.check(forget, { id: "x" }).action).toBe("deny");
  expect(gate("read-only").check(remember, { text: "a fact" }).action).toBe("deny");
});

test("headless: every memory change fails closed, even a free create in auto mode; recall still reads", async () => {
  const { store, remember, forget, recall, gate } = setup();
  for (const mode of ["ask", "auto"] as const) {
    const g = gate(mode, { headless: true });
    const d = g.check(remember, { text: "tests need docker compose up first" });
    expect([d.action, d.headlessAsk]).toEqual(["deny", true]);
    expect(d.reason).toContain("needs a user");
    expect(g.check(forget, { id: "x" }).action).toBe("deny");
    expect(g.check(recall, { query: "docker" }).action).toBe("allow");
  }
  store.create({ id: "docker-first", text: "tests need docker compose up first", type: "project", scope: "project" });
  const r = await recall.run({ query: "how do the tests start docker" }, {} as never);
  expect(r.output).toContain("docker-first (revision 1, project, project, updated ");
});

test("the tools' effects: create, update from the revision read (a stale one is a conflict), forget archives", async () => {
  const { store, remember, forget } = setup();
  const ctx = {} as never;
  const made = await remember.run({ text: "lint with biome" }, ctx);
  expect(made.ok).toBe(true);
  const id = /remembered as (\S+) /.exec(made.output)![1]!;
  expect(store.get(id)!.fact.text).toBe("lint with biome");
  expect((await remember.run({ text: "lint with eslint", id }, ctx)).output).toContain("pass the revision you read");
  expect((await remember.run({ text: "lint with eslint", id, revision: 1 }, ctx)).output).toBe(`updated ${id} to revision 2`);
  const stale = await remember.run({ text: "lint with oxlint", id, revision: 1 }, ctx);
  expect([stale.ok, stale.output]).toEqual([false, `error: fact ${id} changed meanwhile: expected revision 1, but it is at revision 2`]);
  expect((await forget.run({ id }, ctx)).output).toBe(`archived ${id} (revision 2)`);
  expect(store.get(id)!.archived).toBe(true);
  expect(store.revisions(id).map((r) => r.fact.text)).toEqual(["lint with biome", "lint with eslint"]);
});
