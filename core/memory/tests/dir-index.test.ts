// The facts folders' on-disk index (dir-index.ts): a new process's first recall starts
// from it, yet never recalls a fact changed, added or forgotten since (by another
// process, or by hand in place); a corrupted, foreign or unsafe index is ignored and rebuilt.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollFor } from "../../testing/fresh-wait.ts";
import { indexPath } from "../dir-index.ts";
import { Recaller } from "../recall.ts";
import { MemoryStore } from "../store.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-memindex-")));
  roots.push(root);
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const store = new MemoryStore(home, workspace);
  store.create({ id: "db-port", text: "the database listens on port 5433", type: "project", scope: "project" });
  store.create({ id: "deploy-day", text: "deploys happen on tuesday", type: "project", scope: "project" });
  store.create({ id: "old-runner", text: "the ci runner is jenkins", type: "project", scope: "project" });
  for (let i = 0; i < 40; i++) store.create({ id: `filler-${i}`, text: `unrelated note number ${i} about lunch`, type: "project", scope: i % 2 ? "project" : "global" });
  return { root, home, workspace, store, index: indexPath(store.paths.scope("project").facts) };
}

type IndexBody = { dirStamp: string; files: [string, string, ...unknown[]][]; part: unknown };
const readIndex = (path: string) => {
  const text = readFileSync(path, "utf8");
  const nl = text.indexOf("\n");
  return { head: JSON.parse(text.slice(0, nl)) as { checksum: string; dir: string }, body: JSON.parse(text.slice(nl + 1)) as IndexBody };
};
const writeIndex = (path: string, head: { dir: string }, body: IndexBody) => {
  const b = JSON.stringify(body);
  writeFileSync(path, `${JSON.stringify({ ...head, checksum: Bun.hash(b).toString(16) })}\n${b}`, { mode: 0o600 });
};

/** Until the file system's clock has moved past every fact written so far (the index then trusts their stamps). */
async function clockPast(root: string, dir: string) {
  const newest = statSync(dir).ctimeMs;
  const probe = join(root, "clock-probe");
  await pollFor("the file system clock to move on", () => (writeFileSync(probe, "x"), statSync(probe).ctimeMs), (t) => t > newest, { everyMs: 5 });
}

/** A new process's first recall (a fresh store: nothing cached in memory). */
const fresh = (home: string, workspace: string, message: string) => new Recaller(new MemoryStore(home, workspace)).recall(message);

test("a fact changed, added or forgotten by another process, or edited in place by hand, after the index was written is what the next recall sees", async () => {
  const { root, home, workspace, store, index } = setup();
  await clockPast(root, store.paths.scope("project").facts);
  const running = new Recaller(store);
  expect(running.recall("which port does the database use").picked.map((p) => p.id)).toEqual(["db-port"]);
  // The index is written, 0600, every stamp trusted (so what follows is caught by the stamps, not by a re-read).
  expect(statSync(index).mode & 0o777).toBe(0o600);
  const before = readIndex(index).body;
  expect(before.dirStamp).not.toBe("");
  expect(before.files.filter(([, stamp]) => stamp === "")).toEqual([]);
  expect(fresh(home, workspace, "which port does the database use").picked.map((p) => p.id)).toEqual(["db-port"]);

  const child = Bun.spawn([process.execPath, join(import.meta.dir, "change-child.ts"), home, workspace,
    "update", "db-port", "1", "the database moved to port 6543",
    "create", "queue-broker", "the message queue broker is rabbitmq",
    "forget", "deploy-day"], { stdout: "pipe", stderr: "pipe" });
  expect(await new Response(child.stdout).text()).toBe("done");
  expect(await child.exited).toBe(0);

  for (const r of [running, new Recaller(new MemoryStore(home, workspace))]) {
    const port = r.recall("which port does the database use");
    expect(port.picked.map((p) => [p.id, p.revision])).toEqual([["db-port", 2]]);
    expect(port.block).toContain("port 6543");
    expect(port.block).not.toContain("5433");
    expect(r.recall("which broker runs the message queue").picked.map((p) => p.id)).toEqual(["queue-broker"]);
    expect(r.recall("when do deploys happen").picked).toEqual([]);
  }
  // By hand, in place (same inode, same size, the folder untouched): a new process still sees it.
  const runner = store.get("old-runner")!.path;
  await clockPast(root, store.paths.scope("project").facts);
  fresh(home, workspace, "rebuild the index");
  const ino = statSync(runner).ino;
  writeFileSync(runner, readFileSync(runner, "utf8").replace("jenkins", "buildkt"));
  expect(statSync(runner).ino).toBe(ino);
  const t = fresh(home, workspace, "which ci runner do we use");
  expect(t.block).toContain("the ci runner is buildkt");
  expect(t.block).not.toContain("jenkins");
});

test("a corrupted, foreign or unsafe index is ignored and rebuilt: its facts never load", async () => {
  const { root, home, workspace, store, index } = setup();
  await clockPast(root, store.paths.scope("project").facts);
  fresh(home, workspace, "which port does the database use");
  const good = readIndex(index);
  const goodText = readFileSync(index, "utf8");
  const ask = () => fresh(home, workspace, "which port does the database use");

  // A fact's text changed inside the index (the checksum no longer matches); truncated; not JSON at all.
  for (const broken of [goodText.replace("port 5433", "port 9999"), goodText.slice(0, 500), "\0\0garbage\n{]"]) {
    writeFileSync(index, broken, { mode: 0o600 });
    expect(ask().block).toContain("port 5433");
    expect(readFileSync(index, "utf8")).toBe(goodText);
  }

  // A well-formed index naming a fact whose file does not exist: the fact never loads.
  const planted = structuredClone(good.body);
  const row = planted.files.find(([name]) => name === "db-port.md")!;
  planted.files.push(["planted-fact.md", row[1], 1, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", "project", "project", "PLANTED the database password is hunter2"]);
  planted.files.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  writeIndex(index, good.head, planted);
  expect(ask().block).not.toContain("PLANTED");
  expect(new MemoryStore(home, workspace).list().facts.map((f) => f.id)).not.toContain("planted-fact");
  expect(readFileSync(index, "utf8")).toBe(goodText);

  // A well-formed index whose text differs from the files, made for another folder (another
  // workspace's), or readable by others: ignored, and replaced by one of this folder's files.
  const forged = structuredClone(good.body);
  forged.files.find(([name]) => name === "db-port.md")![7] = "the database listens on port 9999";
  for (const [head, mode] of [[{ ...good.head, dir: join(root, "elsewhere", "facts") }, 0o600], [good.head, 0o644]] as const) {
    writeIndex(index, head, forged);
    chmodSync(index, mode);
    expect(ask().block).toContain("port 5433");
    expect(readFileSync(index, "utf8")).toBe(goodText);
    expect(statSync(index).mode & 0o777).toBe(0o600);
  }
});
