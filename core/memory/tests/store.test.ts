// The fact store on real files: format, revisions, archive and restore, modes, conflicts between processes.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../store.ts";
import { parseFact } from "../fact.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-memory-")));
  roots.push(root);
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(workspace, { recursive: true });
  return { home, workspace, store: new MemoryStore(home, workspace) };
}

test("a fact is one Markdown file with front matter, under the home keyed by the workspace, mode 0600", () => {
  const { home, workspace, store } = setup();
  const f = store.create({ text: "Tests need `docker compose up` first.", type: "project", scope: "project" });
  expect(f.revision).toBe(1);
  expect(f.id).toMatch(/^tests-need-docker-compose-up-[0-9a-f]{6}$/);
  const rec = store.get(f.id)!;
  expect(rec.path.startsWith(join(home, "memory", "projects"))).toBe(true);
  expect(rec.path.startsWith(workspace)).toBe(false);
  expect(statSync(rec.path).mode & 0o777).toBe(0o600);
  const text = readFileSync(rec.path, "utf8");
  expect(text).toStartWith(`---\nid: ${f.id}\nrevision: 1\ncreated: `);
  expect(text).toContain("\ntype: project\nscope: project\n---\nTests need `docker compose up` first.\n");
  const g = store.create({ text: "I prefer pnpm", type: "user", scope: "global" });
  expect(store.get(g.id)!.path).toBe(join(home, "memory", "global", "facts", `${g.id}.md`));
  // Another workspace sees the global fact but not this project's.
  const other = join(workspace, "..", "other");
  mkdirSync(other);
  expect(new MemoryStore(home, other).list().facts.map((x) => x.id)).toEqual([g.id]);
  expect(store.list().facts.map((x) => x.id)).toEqual([f.id, g.id]);
});

test("update snapshots the previous revision; a stale expected revision is a conflict naming both revisions", () => {
  const { store } = setup();
  const f = store.create({ text: "staging is at staging.example.com", type: "reference", scope: "project" });
  const u = store.update(f.id, 1, { text: "staging moved to stage2.example.com" });
  expect(u.revision).toBe(2);
  expect(u.created).toBe(f.created);
  expect(() => store.update(f.id, 1, { text: "lost?" })).toThrow(`fact ${f.id} changed meanwhile: expected revision 1, but it is at revision 2`);
  expect(store.revisions(f.id).map((r) => [r.fact.revision, r.fact.text, r.current])).toEqual([
    [1, "staging is at staging.example.com", false],
    [2, "staging moved to stage2.example.com", true],
  ]);
});

test("forget archives (never deletes); restore brings a revision back as n+1 with the history intact", () => {
  const { store } = setup();
  const f = store.create({ text: "use node 20", type: "project", scope: "project" });
  store.update(f.id, 1, { text: "use node 22" });
  const gone = store.forget(f.id);
  expect(gone.revision).toBe(2);
  expect(store.list().facts).toEqual([]);
  expect(store.list({ archived: true }).facts.map((x) => [x.id, x.revision])).toEqual([[f.id, 2]]);
  expect(store.get(f.id)!.archived).toBe(true);
  expect(() => store.update(f.id, 2, { text: "x" })).toThrow("it was archived");
  const back = store.restore(f.id, 1);
  expect([back.revision, back.text, back.created]).toEqual([3, "use node 20", f.created]);
  expect(store.get(f.id)!.archived).toBe(false);
  expect(store.revisions(f.id).map((r) => r.fact.revision)).toEqual([1, 2, 3]);
  // Restoring a live fact also keeps what it replaces.
  const again = store.restore(f.id, 2);
  expect([again.revision, again.text]).toEqual([4, "use node 22"]);
  expect(store.revisions(f.id).map((r) => `${r.fact.revision}:${r.fact.text}`)).toEqual(["1:use node 20", "2:use node 22", "3:use node 20", "4:use node 22"]);
  expect(() => store.restore(f.id, 9)).toThrow(`fact ${f.id} has no revision 9`);
});

test("create never overwrites: an id that exists (live or archived) is a conflict", () => {
  const { store } = setup();
  store.create({ id: "pinned-1", text: "one", type: "project", scope: "project" });
  expect(() => store.create({ id: "pinned-1", text: "two", type: "project", scope: "project" })).toThrow("fact pinned-1 already exists");
  store.forget("pinned-1");
  expect(() => store.create({ id: "pinned-1", text: "three", type: "project", scope: "project" })).toThrow("already exists");
  expect(store.revisions("pinned-1").map((r) => r.fact.text)).toEqual(["one"]);
});

test("an unreadable fact file is reported with its file and field; the others still list", () => {
  const { store } = setup();
  const ok = store.create({ text: "fine", type: "project", scope: "project" });
  const dir = store.paths.scope("project").facts;
  writeFileSync(join(dir, "broken-1.md"), "---\nid: broken-1\nrevision: two\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: project\nscope: project\n---\nx\n");
  writeFileSync(join(dir, "broken-2.md"), "---\nid: broken-2\nrevision: 1\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: opinion\nscope: project\n---\nx\n");
  const l = store.list();
  expect(l.facts.map((f) => f.id)).toEqual([ok.id]);
  expect(l.problems.map((p) => p.message)).toEqual([
    `${join(dir, "broken-1.md")}: revision: "two" is not a positive whole number`,
    `${join(dir, "broken-2.md")}: type: "opinion" is not one of user, feedback, project, reference`,
  ]);
  expect(() => parseFact("x.md", "no front matter")).toThrow("x.md: front matter: the file must start with a --- block");
});

test("two processes update the same fact from the same revision: one wins, the other gets a conflict, nothing is lost", async () => {
  const { home, workspace, store } = setup();
  const f = store.create({ text: "original text", type: "project", scope: "project" });
  const run = (text: string) => Bun.spawn([process.execPath, join(import.meta.dir, "update-child.ts"), home, workspace, f.id, "1", text], { stdout: "pipe" });
  const procs = [run("from process A"), run("from process B")];
  const results = await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as { ok: boolean; code?: string; text: string; revision?: number }));
  const won = results.filter((r) => r.ok);
  const lost = results.filter((r) => !r.ok);
  expect(won).toHaveLength(1);
  expect(lost).toHaveLength(1);
  expect(won[0]!.revision).toBe(2);
  expect(lost[0]!.code).toBe("memory_conflict");
  // The winner is live, the original is a snapshot; the loser still holds its own text to retry with.
  expect(store.get(f.id)!.fact.text).toBe(won[0]!.text);
  expect(store.revisions(f.id).map((r) => r.fact.text)).toEqual(["original text", won[0]!.text]);
  expect(readdirSync(store.paths.locks)).toEqual([]);
  expect(existsSync(join(workspace, ".reasonix"))).toBe(false);
});

test("a lock left by a killed process is taken over; a lock held by a live process makes the change wait, then fail as busy with nothing changed", async () => {
  const { store } = setup();
  const f = store.create({ text: "locked fact", type: "project", scope: "project" });
  mkdirSync(store.paths.locks, { recursive: true });
  const lock = join(store.paths.locks, `${f.id}.lock`);
  const dead = Bun.spawn(["true"]);
  await dead.exited;
  writeFileSync(lock, String(dead.pid));
  expect(store.update(f.id, 1, { text: "after a dead owner" }).revision).toBe(2);
  expect(readdirSync(store.paths.locks)).toEqual([]);

  const live = Bun.spawn(["sleep", "60"]);
  try {
    writeFileSync(lock, String(live.pid));
    expect(() => store.update(f.id, 2, { text: "while locked" })).toThrow(`fact ${f.id} is locked by another Reasonix process`);
    expect(store.get(f.id)!.fact.text).toBe("after a dead owner");
    expect(existsSync(lock)).toBe(true);
  } finally {
    live.kill();
    await live.exited;
  }
  // Its owner gone, the same lock is taken over.
  expect(store.update(f.id, 2, { text: "after the owner left" }).revision).toBe(3);
});
