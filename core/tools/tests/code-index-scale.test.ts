// code_index at scale: many changed files are parsed on worker threads (and
// in this thread when workers cannot start), and the walk's file list is
// reused only while no directory it listed and no ignore file it read changed.
import { afterAll, describe, expect, test } from "bun:test";
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BATCH, parseBatch, parseInProcess, poolState, resetPool } from "../../code-index/pool.ts";
import { CodeIndex } from "../../code-index/store.ts";
import { policyFor } from "../builtin/common.ts";
import * as F from "./code-index-fixtures.ts";
import { fixture, type Fixture } from "./helpers.ts";

const fixtures: Fixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
  resetPool();
});
function make(opts: Parameters<typeof fixture>[0] = {}): Fixture {
  const f = fixture(opts);
  fixtures.push(f);
  return f;
}

/**
 * Set the mtime of the workspace and the given paths to one moment a minute back (older than
 * the walk cache's recency margin; the same moment each time, so aging again changes nothing).
 */
const PAST = new Date(Date.now() - 60_000);
function age(fx: Fixture, paths: string[]): void {
  for (const p of [".", ...paths]) utimesSync(join(fx.ws, p), PAST, PAST);
}

describe("code_index parsing threads", () => {
  test("with REASONIX_CODE_INDEX_WORKERS, a cold index of more than one batch is parsed on workers, with the same symbols as in this thread", async () => {
    resetPool();
    process.env.REASONIX_CODE_INDEX_WORKERS = "2";
    const fx = make();
    const n = BATCH * 3 + 5;
    for (let i = 0; i < n; i++) fx.write(`src/d${i % 4}/f${i}.ts`, F.TS_SOURCE.replaceAll("Engine", `Engine${i}`));
    const idx = new CodeIndex(fx.ws, null);
    const s = await idx.refresh(fx.ws, policyFor(fx.ctx)).finally(() => delete process.env.REASONIX_CODE_INDEX_WORKERS);
    expect(s.parsed).toBe(n);
    expect(poolState()).toEqual({ workers: expect.any(Number), broken: null });
    expect(poolState().workers).toBeGreaterThanOrEqual(1);
    const here = await parseInProcess(s.files.map((f) => ({ text: F.TS_SOURCE.replaceAll("Engine", `Engine${f.rel.match(/f(\d+)/)![1]}`), lang: "typescript" as const })));
    expect(s.files.map((f) => f.entry.symbols)).toEqual(here as never);
    expect(s.files.find((f) => f.rel === "src/d1/f5.ts")!.entry.symbols.map((x) => x.name)).toContain("Engine5");
  });

  test("without the variable, nothing is parsed on a worker", async () => {
    resetPool();
    const fx = make();
    for (let i = 0; i < BATCH * 2 + 1; i++) fx.write(`f${i}.py`, F.PY_SOURCE);
    const s = await new CodeIndex(fx.ws, null).refresh(fx.ws, policyFor(fx.ctx));
    expect(s.parsed).toBe(BATCH * 2 + 1);
    expect(poolState()).toEqual({ workers: 0, broken: null });
  });

  test("when a worker cannot start, batches are parsed in this thread and the reason is kept", async () => {
    const fx = make();
    resetPool(pathToFileURL(join(fx.ws, "no-such-worker.ts")).href);
    const jobs = Array.from({ length: 3 }, () => ({ text: F.RS_SOURCE, lang: "rust" as const }));
    const got = await parseBatch(jobs, 2);
    expect(got).toEqual(await parseInProcess(jobs));
    expect(poolState().broken).toMatch(/parsing worker/);
    expect(poolState().workers).toBe(0);
    resetPool();
  });
});

describe("code_index walk reuse", () => {
  test("the file list is reused until a directory listing, an ignore file or the policy changes", async () => {
    const fx = make();
    expect(Bun.spawnSync(["git", "init", "-q", fx.ws]).exitCode).toBe(0);
    fx.write(".gitignore", "*.gen.ts\n");
    fx.write("src/a.ts", "export function a() {}\n");
    fx.write("src/b.ts", "export function b() {}\n");
    age(fx, ["src", ".gitignore", ".git/info/exclude"]);
    const idx = new CodeIndex(fx.ws, null);
    const policy = policyFor(fx.ctx);
    const rels = async (p = policy) => (await idx.refresh(fx.ws, p)).files.map((f) => f.rel);
    expect(await rels()).toEqual(["src/a.ts", "src/b.ts"]);
    expect(await rels()).toEqual(["src/a.ts", "src/b.ts"]);
    expect([idx.walks.walks, idx.walks.hits]).toEqual([1, 1]);

    // A new file changes its directory's mtime: walked again.
    fx.write("src/c.ts", "export function c() {}\n");
    expect(await rels()).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);
    // Just changed (within the clock margin): not trusted yet, walked again.
    expect(await rels()).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);
    expect(idx.walks.walks).toBe(3);
    age(fx, ["src"]);
    expect(await rels()).toHaveLength(3);
    expect(await rels()).toHaveLength(3);
    expect([idx.walks.walks, idx.walks.hits]).toEqual([4, 2]);

    // An ignore file edited in place (its directory's mtime unchanged).
    writeFileSync(join(fx.ws, ".gitignore"), "*.gen.ts\nsrc/b.ts\n");
    age(fx, ["src"]);
    expect(await rels()).toEqual(["src/a.ts", "src/c.ts"]);

    // An edit to a listed file is seen without a walk (its own stat).
    age(fx, [".gitignore"]);
    await rels();
    const hits = idx.walks.hits;
    writeFileSync(join(fx.ws, "src/a.ts"), "export function a() {}\nexport class Fresh {}\n");
    utimesSync(join(fx.ws, "src/a.ts"), new Date(), new Date(Date.now() + 5000));
    age(fx, ["src"]);
    const s = await idx.refresh(fx.ws, policy);
    expect(idx.walks.hits).toBe(hits + 1);
    expect(s.files[0]!.entry.symbols.map((x) => x.name)).toEqual(["a", "Fresh"]);

    // Another policy (another forbid_read): walked again, the hidden file gone.
    const fx2 = { ...fx.ctx, pathPolicy: undefined, config: { sandbox: { forbid_read: ["src/c.ts"] } } };
    expect(await rels(policyFor(fx2 as never))).toEqual(["src/a.ts"]);
  });
});
