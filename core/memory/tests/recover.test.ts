// Recover on real files: a fact file from anywhere comes back as a new revision; history is never overwritten.
import { afterEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listFacts, recoverFact } from "../admin.ts";
import { MemoryStore } from "../store.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-recover-")));
  roots.push(root);
  const workspace = join(root, "ws");
  mkdirSync(workspace, { recursive: true });
  return { root, workspace, store: new MemoryStore(join(root, "home"), workspace) };
}

test("forget → archived → recover from a backup gives revision n+1; every earlier revision stays", () => {
  const { root, workspace, store } = setup();
  const f = store.create({ text: "staging is at staging.example.test", type: "reference", scope: "project" });
  const f2 = store.update(f.id, 1, { text: "staging moved to stage2.example.test" });
  const backup = join(root, "backup.md");
  copyFileSync(store.get(f.id)!.path, backup);
  store.forget(f.id);
  expect(listFacts(store, "archived").facts.map((x) => [x.id, x.revision, x.archived])).toEqual([[f.id, 2, true]]);
  expect(listFacts(store).facts).toEqual([]);

  const r = recoverFact(store, "../backup.md", workspace);
  expect([r.known, r.fact.revision, r.fact.text, r.fact.created, r.source]).toEqual([true, f2.revision + 1, "staging moved to stage2.example.test", f.created, backup]);
  expect(listFacts(store, "archived").facts).toEqual([]);
  expect(store.revisions(f.id).map((x) => [x.fact.revision, x.current])).toEqual([[1, false], [2, false], [3, true]]);
  // Recovering again from the same copy stacks one more revision on top.
  expect(recoverFact(store, backup, workspace).fact.revision).toBe(4);
  expect(store.revisions(f.id).map((x) => x.fact.text)).toEqual([
    "staging is at staging.example.test",
    "staging moved to stage2.example.test",
    "staging moved to stage2.example.test",
    "staging moved to stage2.example.test",
  ]);
});

test("~/ in the path is the home directory", () => {
  const { root, workspace, store } = setup();
  const f = store.create({ text: "kept in a backup under home", type: "project", scope: "project" });
  writeFileSync(join(root, "home-backup.md"), readFileSync(store.get(f.id)!.path, "utf8"));
  const was = process.env.HOME;
  process.env.HOME = root;
  try {
    expect(recoverFact(store, "~/home-backup.md", workspace)).toMatchObject({ source: join(root, "home-backup.md"), fact: { revision: 2 } });
  } finally {
    process.env.HOME = was;
  }
});

test("a copy of a fact this workspace never knew is written as it is; its scope is the copy's", () => {
  const { root, workspace, store } = setup();
  const file = join(root, "elsewhere.md");
  writeFileSync(file, "---\nid: uses-pnpm-abc123\nrevision: 5\ncreated: 2026-01-02T03:04:05.000Z\nupdated: 2026-02-02T03:04:05.000Z\ntype: user\nscope: global\n---\nI prefer pnpm\n");
  const r = recoverFact(store, file, workspace);
  expect([r.known, r.fact.revision, r.fact.scope, r.fact.type]).toEqual([false, 5, "global", "user"]);
  expect(store.get("uses-pnpm-abc123")!.path).toBe(join(root, "home", "memory", "global", "facts", "uses-pnpm-abc123.md"));
});

test("the copy's scope never moves a known fact: it stays where it is, one revision up", () => {
  const { root, workspace, store } = setup();
  const f = store.create({ text: "tests need docker", type: "project", scope: "project" });
  const file = join(root, "g.md");
  writeFileSync(file, readFileSync(store.get(f.id)!.path, "utf8").replace("scope: project", "scope: global").replace("tests need docker", "tests need docker compose"));
  const r = recoverFact(store, file, workspace);
  expect([r.fact.scope, r.fact.revision, r.fact.text]).toEqual(["project", 2, "tests need docker compose"]);
  expect(existsSync(store.paths.scope("global").dir)).toBe(false);
});

test("an invalid, oversized, missing or special file is refused with the file and the reason, and nothing changes", () => {
  const { root, workspace, store } = setup();
  const f = store.create({ text: "keep me", type: "project", scope: "project" });
  const bad = join(root, "bad.md");
  writeFileSync(bad, `---\nid: ${f.id}\nrevision: x\n---\nnew text\n`);
  expect(() => recoverFact(store, bad, workspace)).toThrow(`${bad}: revision: "x" is not a positive whole number`);
  const big = join(root, "big.md");
  writeFileSync(big, `---\nid: big\nrevision: 1\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: project\nscope: project\n---\n${"x".repeat(9000)}\n`);
  expect(() => recoverFact(store, big, workspace)).toThrow("at most 8000 characters");
  expect(() => recoverFact(store, join(root, "nope.md"), workspace)).toThrow("no such file");
  const fifo = join(root, "fifo.md");
  if (spawnSync("mkfifo", [fifo]).status === 0) expect(() => recoverFact(store, fifo, workspace)).toThrow(fifo);
  else console.warn("SKIPPED recover from a FIFO: mkfifo failed on this host");
  expect(store.revisions(f.id).map((x) => [x.fact.revision, x.fact.text])).toEqual([[1, "keep me"]]);
});
