// The whole tree type-checks (bun runs TypeScript without checking types).
import { expect, test } from "bun:test";
import { join } from "node:path";

test("tsc --noEmit reports no type errors", async () => {
  const root = join(import.meta.dir, "..", "..");
  const p = Bun.spawn([process.execPath, join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", root], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  expect(out.split("\n").filter((l) => /error TS\d+/.test(l))).toEqual([]);
  expect(code).toBe(0);
}, 180_000);
