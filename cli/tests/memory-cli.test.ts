// `reasonix memory` through the real CLI process: add, list, show, forget,
// restore, revisions, in text and --json, with the exit codes scripts rely on.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore } from "../../core/memory/store.ts";
import { makeCliEnv, runCli } from "./run-helpers.ts";

// Each test spawns the CLI up to a dozen times: bun's 5 s default ran out under load (seen: 5.0 s on the first test).
setDefaultTimeout(60_000);
const ce = makeCliEnv("http://127.0.0.1:9/v1");
afterAll(() => ce.cleanup());

test("add → list → forget → restore → revisions, text and --json", async () => {
  const add = await runCli(ce, ["memory", "add", "--json", "tests", "need", "docker", "compose", "up", "first"]);
  expect(add.code).toBe(0);
  const f = JSON.parse(add.stdout);
  expect([f.revision, f.type, f.scope, f.text]).toEqual([1, "project", "project", "tests need docker compose up first"]);
  const g = JSON.parse((await runCli(ce, ["memory", "add", "--json", "--global", "--type", "user", "I prefer pnpm"])).stdout);

  const list = JSON.parse((await runCli(ce, ["memory", "list", "--json"])).stdout);
  expect(list.facts.map((x: { id: string; scope: string }) => [x.id, x.scope])).toEqual([[f.id, "project"], [g.id, "global"]]);
  expect(list.problems).toEqual([]);
  const text = await runCli(ce, ["memory", "list"]);
  expect(text.stdout).toContain(`${f.id}  r1 · project · project · `);
  expect(text.stdout).toContain("  tests need docker compose up first\n");

  // Another workspace sees only the global fact.
  const other = join(ce.workspace, "..", "other-ws");
  mkdirSync(other, { recursive: true });
  expect(JSON.parse((await runCli(ce, ["memory", "list", "--json", "--dir", other])).stdout).facts.map((x: { id: string }) => x.id)).toEqual([g.id]);

  const show = await runCli(ce, ["memory", "show", f.id]);
  expect(show.stdout).toContain(`---\nid: ${f.id}\nrevision: 1\n`);

  // A stale --revision is a conflict (exit 1) and changes nothing.
  const stale = await runCli(ce, ["memory", "forget", f.id, "--revision", "7"]);
  expect(stale.code).toBe(1);
  expect(stale.stderr).toContain("expected revision 7, but it is at revision 1");
  const forget = await runCli(ce, ["memory", "forget", f.id]);
  expect([forget.code, forget.stdout]).toEqual([0, `archived ${f.id} at revision 1\n`]);
  expect(JSON.parse((await runCli(ce, ["memory", "list", "--json"])).stdout).facts.map((x: { id: string }) => x.id)).toEqual([g.id]);
  const archived = JSON.parse((await runCli(ce, ["memory", "list", "--json", "--archived"])).stdout).facts;
  expect(archived.map((x: { id: string; archived: boolean }) => [x.id, x.archived])).toEqual([[f.id, true]]);

  const restore = await runCli(ce, ["memory", "restore", f.id, "1"]);
  expect([restore.code, restore.stdout]).toEqual([0, `restored ${f.id} revision 1 as revision 2\n`]);
  const revs = JSON.parse((await runCli(ce, ["memory", "revisions", f.id, "--json"])).stdout);
  expect(revs.map((r: { revision: number; current: boolean }) => [r.revision, r.current])).toEqual([[1, false], [2, true]]);
});

test("usage errors exit 2, unknown facts and unreadable files exit 1 with the file and field", async () => {
  expect((await runCli(ce, ["memory"])).code).toBe(2);
  expect((await runCli(ce, ["memory", "restore", "x", "0"])).code).toBe(2);
  const missing = await runCli(ce, ["memory", "show", "no-such-fact"]);
  expect([missing.code, missing.stderr.includes("no fact no-such-fact")]).toEqual([1, true]);
  const help = await runCli(ce, ["memory", "--help"]);
  expect(help.code).toBe(0);
  for (const sub of ["list", "show", "add", "forget", "restore", "revisions", "archived", "recover"]) expect(help.stdout).toContain(`reasonix memory ${sub}`);

  const dir = new MemoryStore(ce.home, ce.workspace).paths.scope("project").facts;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "bad.md"), "---\nid: bad\nrevision: 1\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: project\n---\nx\n");
  const list = await runCli(ce, ["memory", "list"]);
  expect(list.code).toBe(1);
  expect(list.stderr).toContain(`unreadable: ${join(dir, "bad.md")}: scope: missing`);
});

test("forget → archived → recover from a backup is revision n+1, in text and --json; a broken file exits 1 naming the field", async () => {
  const s = new MemoryStore(ce.home, ce.workspace);
  const f = s.create({ text: "the staging URL is staging.example.test", type: "reference", scope: "project" });
  s.update(f.id, 1, { text: "the staging URL is stage2.example.test" });
  const backup = join(ce.home, "..", "cli-backup.md");
  writeFileSync(backup, readFileSync(s.get(f.id)!.path, "utf8"));
  expect((await runCli(ce, ["memory", "forget", f.id])).code).toBe(0);
  const archived = await runCli(ce, ["memory", "archived", "--json"]);
  expect(archived.code).toBe(0);
  expect(JSON.parse(archived.stdout).facts.map((x: { id: string; revision: number; archived: boolean }) => [x.id, x.revision, x.archived])).toEqual([[f.id, 2, true]]);
  expect((await runCli(ce, ["memory", "archived"])).stdout).toContain(`${f.id}  r2 · reference · project · `);

  const rec = await runCli(ce, ["memory", "recover", "--json", backup]);
  expect(rec.code).toBe(0);
  expect(JSON.parse(rec.stdout)).toMatchObject({ id: f.id, revision: 3, known: true, source: backup, text: "the staging URL is stage2.example.test" });
  expect(JSON.parse((await runCli(ce, ["memory", "archived", "--json"])).stdout).facts.filter((x: { id: string }) => x.id === f.id)).toEqual([]);
  const again = await runCli(ce, ["memory", "recover", backup]);
  expect([again.code, again.stdout]).toEqual([0, `recovered ${f.id} from ${backup} as revision 4\n`]);
  expect(s.revisions(f.id).map((r) => r.fact.revision)).toEqual([1, 2, 3, 4]);

  const broken = join(ce.home, "..", "cli-broken.md");
  writeFileSync(broken, `---\nid: ${f.id}\nrevision: 9\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: secretive\nscope: project\n---\nx\n`);
  const bad = await runCli(ce, ["memory", "recover", broken]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain(`${broken}: type: "secretive" is not one of user, feedback, project, reference`);
  expect((await runCli(ce, ["memory", "recover"])).code).toBe(2);
  expect(s.get(f.id)!.fact.revision).toBe(4);
});

test('reasonix run "/memory …" runs the same command headless, never reaching the model', async () => {
  const s = new MemoryStore(ce.home, ce.workspace);
  const f = s.create({ text: "run lists this fact", type: "project", scope: "project" });
  const list = await runCli(ce, ["run", "/memory"]);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain(`${f.id}  r1 · project · project`);
  const recall = await runCli(ce, ["run", "--output-format", "json", "/memory recall"]);
  expect(JSON.parse(recall.stdout)).toMatchObject({ command: "memory", ok: true, result: "No recall yet in this session: it runs before each message you send." });
  const bad = await runCli(ce, ["run", "/memory revisions no-such-fact"]);
  expect([bad.code, bad.stderr.trim()]).toEqual([1, "memory: no fact no-such-fact"]);
});
