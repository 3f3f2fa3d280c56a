// The per-user temp parent (/tmp/reasonix-<uid>) holds every session's temp
// dir. Another local user who creates it first (or plants a link there) must
// not get to read or swap those dirs: Reasonix creates it 0700 and refuses
// one it did not make the way it expects.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReasonixError } from "../../errors.ts";
import { sessionTmpParent } from "../tmp.ts";

const posix = typeof process.getuid === "function";
const isRoot = posix && process.getuid!() === 0;
if (posix && !isRoot) console.warn("SKIPPED temp-parent 'other owner' case: creating a directory owned by another user needs root");
let base: string;
const name = () => `reasonix-${posix ? process.getuid!() : "user"}`;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "rx-tmpparent-")));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function fresh(): string {
  const d = mkdtempSync(join(base, "t-"));
  return d;
}

function refusal(dir: string): ReasonixError {
  try {
    sessionTmpParent(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(ReasonixError);
    return e as ReasonixError;
  }
  throw new Error("expected a refusal");
}

describe.skipIf(!posix)("session temp parent", () => {
  test("created 0700 and owned by the user", () => {
    const dir = fresh();
    const p = sessionTmpParent(dir);
    expect(p).toBe(join(dir, name()));
    const st = lstatSync(p);
    expect(st.isDirectory()).toBe(true);
    expect(st.mode & 0o777).toBe(0o700);
    expect(st.uid).toBe(process.getuid!());
    expect(sessionTmpParent(dir)).toBe(p); // an existing, correct one is reused
  });

  test("refused when it is a symbolic link", () => {
    const dir = fresh();
    const target = join(dir, "attacker-owned");
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(dir, name()));
    const e = refusal(dir);
    expect(e.message).toContain(join(dir, name()));
    expect(e.message).toMatch(/symbolic link/);
    expect(`${e.message} ${e.hint ?? ""}`).toMatch(/remove|TMPDIR/);
  });

  test("refused when its permissions let others in", () => {
    const dir = fresh();
    mkdirSync(join(dir, name()));
    chmodSync(join(dir, name()), 0o777);
    const e = refusal(dir);
    expect(e.message).toMatch(/0777/);
    expect(`${e.message} ${e.hint ?? ""}`).toMatch(/chmod 700|remove/);
  });

  test("refused when it is not a directory", () => {
    const dir = fresh();
    Bun.write(join(dir, name()), "x");
    expect(refusal(dir).message).toMatch(/not a directory/);
  });

  test.skipIf(!isRoot)("refused when another user owns it", () => {
    const dir = fresh();
    mkdirSync(join(dir, name()), { mode: 0o700 });
    chownSync(join(dir, name()), 65534, 65534);
    const e = refusal(dir);
    expect(e.message).toMatch(/owned by uid 65534/);
  });
});
