// Recall on real fact files: the right fact among 500 with the reasons, generic turns
// suppressed, project before equivalent global, stale down-ranked, the budget held.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatFact } from "../fact.ts";
import { MAX_CHARS, MAX_FACTS, Recaller, subjectTerms } from "../recall.ts";
import { MemoryStore } from "../store.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-recall-")));
  roots.push(root);
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  return new MemoryStore(join(root, "home"), workspace);
}

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember fjord granite harbor iris jade karst lagoon meadow nectar onyx prairie quartz reef saffron tundra umber valley willow".split(" ");

/** `n` filler fact files of 8 pseudo-random words each (deterministic), written straight to disk. */
function filler(store: MemoryStore, n: number): void {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const at = new Date().toISOString();
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 8 }, () => WORDS[next() % WORDS.length]);
    const scope = i % 2 ? "global" : "project";
    const dir = store.paths.scope(scope).facts;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `filler-${i}.md`), formatFact({ id: `filler-${i}`, revision: 1, created: at, updated: at, type: "project", scope, text: `note ${words.join(" ")}` }));
  }
}

test("among 500 facts, recall picks the one about the message and says why (id, score, matched words)", () => {
  const store = setup();
  filler(store, 498);
  const docker = store.create({ id: "tests-need-docker", text: "The integration tests need `docker compose up -d postgres` before `bun test`.", type: "project", scope: "project" });
  store.create({ id: "pnpm", text: "The user prefers pnpm over npm.", type: "user", scope: "global" });
  const r = new Recaller(store);
  const t = r.recall("why do the integration tests fail with connection refused to postgres?");
  expect(t.considered).toBe(500);
  expect(t.picked.map((p) => p.id)).toEqual([docker.id]);
  expect(t.picked[0]!.matched.sort()).toEqual(["integration", "postgres", "tests"]);
  expect(t.picked[0]!.score).toBeGreaterThan(0);
  expect(t.block).toContain("<memory>\n");
  expect(t.block).toContain("[tests-need-docker · project · project · updated ");
  expect(t.block).toContain("docker compose up -d postgres");
  expect(t.block).not.toContain("pnpm");
  expect(r.last).toBe(t);
});

test("generic turns recall nothing and say so", () => {
  const store = setup();
  store.create({ text: "continue the migration with the orders table next", type: "project", scope: "project" });
  const r = new Recaller(store);
  for (const m of ["continue", "go on", "ok", "OK, go ahead.", "yes please", "keep going", "thanks!", "lgtm"]) {
    expect(subjectTerms(m)).toEqual([]);
    const t = r.recall(m);
    expect([t.suppressed, t.picked, t.block]).toEqual(["generic message (no subject words)", [], ""]);
  }
  expect(r.recall("what about the orders table?").picked).toHaveLength(1);
});

test("a project fact comes before the same global one (which is then left out); a stale fact ranks below a fresh one", () => {
  const store = setup();
  store.create({ id: "g-deploy", text: "Deploys go through the release pipeline", type: "reference", scope: "global" });
  store.create({ id: "p-deploy", text: "Deploys go through the release pipeline", type: "reference", scope: "project" });
  const r = new Recaller(store);
  expect(r.recall("how do deploys work").picked.map((p) => p.id)).toEqual(["p-deploy"]);

  const store2 = setup();
  const facts = store2.paths.scope("project").facts;
  mkdirSync(facts, { recursive: true });
  const old = "2020-01-01T00:00:00.000Z";
  writeFileSync(join(facts, "old-lint.md"), formatFact({ id: "old-lint", revision: 1, created: old, updated: old, type: "project", scope: "project", text: "Run lint with eslint" }));
  store2.create({ id: "new-lint", text: "Run lint with biome", type: "project", scope: "project" });
  const t = new Recaller(store2).recall("how do I run lint");
  expect(t.picked.map((p) => [p.id, p.stale])).toEqual([["new-lint", false], ["old-lint", true]]);
  expect(t.block).toContain("[old-lint · project · project · updated 2020-01-01 · may be outdated]");
});

test(`at most ${MAX_FACTS} facts and ${MAX_CHARS} characters; the rest is named as over budget`, () => {
  const store = setup();
  for (let i = 0; i < 7; i++) store.create({ id: `cache-${i}`, text: `the cache layer ${"detail ".repeat(20 + i * 40)}`, type: "project", scope: "project" });
  const t = new Recaller(store).recall("explain the cache layer");
  expect(t.picked.length).toBeLessThanOrEqual(MAX_FACTS);
  expect(t.picked.length).toBeGreaterThan(0);
  expect(t.chars).toBeLessThanOrEqual(MAX_CHARS);
  expect(t.picked.length + t.overBudget.length).toBe(7);
  const few = setup();
  for (let i = 0; i < 6; i++) few.create({ id: `cache-${i}`, text: `the cache layer note ${i}`, type: "project", scope: "project" });
  expect(new Recaller(few).recall("cache layer").picked).toHaveLength(MAX_FACTS);
});

test("the index follows changes between turns: a new, updated or forgotten fact shows in the next recall", () => {
  const store = setup();
  const r = new Recaller(store);
  expect(r.recall("the flaky websocket test").suppressed).toBe("no facts remembered");
  const f = store.create({ text: "the websocket test is flaky on CI", type: "project", scope: "project" });
  expect(r.recall("the flaky websocket test").picked.map((p) => [p.id, p.revision])).toEqual([[f.id, 1]]);
  store.update(f.id, 1, { text: "the websocket test was fixed by pinning the port" });
  expect(r.recall("the websocket test").picked.map((p) => [p.id, p.revision])).toEqual([[f.id, 2]]);
  store.forget(f.id);
  expect(r.recall("the websocket test").picked).toEqual([]);
});
