// The dependency rule: cli → remote, core; remote → core; core imports neither.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === "node_modules" ? [] : sources(p);
    return /\.(ts|tsx|js)$/.test(n) ? [p] : [];
  });
}

const importRe = /(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function violations(area: string, forbidden: string[]): string[] {
  const out: string[] = [];
  for (const file of sources(join(root, area))) {
    for (const m of readFileSync(file, "utf8").matchAll(importRe)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith(".")) continue;
      const top = relative(root, resolve(dirname(file), spec)).split("/")[0]!;
      if (forbidden.includes(top)) out.push(`${relative(root, file)} imports ${spec}`);
    }
  }
  return out;
}

test("core imports neither cli nor remote", () => {
  expect(violations("core", ["cli", "remote"])).toEqual([]);
});

test("remote does not import cli", () => {
  expect(violations("remote", ["cli"])).toEqual([]);
});

test("the checker sees real imports (it can fail)", () => {
  expect(violations("cli", ["core"]).length).toBeGreaterThan(0);
});
