// Crash reports on disk: 0700 directory, 0600 files, at most 10 (oldest
// dropped), atomic writes (no temp files left), scrubbed before writing.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scrubContext } from "../scrub.ts";
import { buildReport, crashDir, deleteReport, listIds, MAX_REPORTS, readReport, writeReport } from "../store.ts";

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });
const home = () => { const h = mkdtempSync(join(tmpdir(), "rx-crash-store-")); roots.push(h); return h; };
const ctx = scrubContext({ HOME: "/home/alice" });

test("a report is written 0600 in a 0700 directory, scrubbed, and reads back", () => {
  const h = home();
  const err = new RangeError("bad index for alice@example.com in /home/alice/work/x.ts");
  const path = writeReport(buildReport(err, "run", ctx), h);
  expect(statSync(crashDir(h)).mode & 0o777).toBe(0o700);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  const text = readFileSync(path, "utf8");
  expect(text).not.toContain("alice");
  const r = readReport(undefined, h)!;
  expect(r.errorClass).toBe("RangeError");
  expect(r.frontEnd).toBe("run");
  expect(r.message).toBe("bad index for <email> in ~/work/x.ts");
  expect(r.stack.every((f) => /^at .*\((<path>\/[^/]+:\d+|native|<unknown>)\)$/.test(f))).toBe(true);
  expect(readdirSync(crashDir(h)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
});

test(`at most ${MAX_REPORTS} are kept: the oldest go first`, () => {
  const h = home();
  const ids: string[] = [];
  for (let i = 0; i < MAX_REPORTS + 3; i++) {
    const r = buildReport(new Error(`n${i}`), "chat", ctx, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    writeReport(r, h);
    ids.push(r.id);
  }
  expect(listIds(h)).toEqual(ids.slice(3));
});

test("reports made within one second keep the order they were made in: the newest is read first, the oldest dropped", () => {
  const h = home();
  const ids: string[] = [];
  for (let i = 0; i < MAX_REPORTS + 2; i++) {
    const r = buildReport(new Error(`n${i}`), "serve", ctx, new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 10 + i * 70)));
    writeReport(r, h);
    ids.push(r.id);
  }
  expect(listIds(h)).toEqual(ids.slice(2));
  expect(readReport(undefined, h)!.id).toBe(ids.at(-1)!);
});

test("delete removes one report; an unknown or malformed id is an error naming it", () => {
  const h = home();
  const r = buildReport(new Error("x"), "serve", ctx);
  writeReport(r, h);
  expect(() => deleteReport("20260101T000000Z-abcdef", h)).toThrow(/no crash report "20260101T000000Z-abcdef"/);
  expect(() => readReport("../../etc/passwd", h)).toThrow(/no crash report/);
  deleteReport(r.id, h);
  expect(listIds(h)).toEqual([]);
});
