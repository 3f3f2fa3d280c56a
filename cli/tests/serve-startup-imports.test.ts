// `reasonix serve` starts on every remote connect that installs or restarts it, and
// its start-up is the module graph it evaluates before it listens. The MCP SDK (with
// zod and ajv, ~1 MB of JavaScript) belongs to MCP sign-in only: loaded at start-up
// it doubled the time to listening (32 ms -> 17 ms without it, compiled, 2 cores).
// The modules serve loads before listening are the dynamic imports of
// runServeCommand (cli/commands/serve.ts); what they import statically is evaluated
// at start-up.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "../..");

test("serve's start-up imports (what it evaluates before listening) leave out the MCP SDK, zod and ajv", async () => {
  const src = readFileSync(join(root, "cli/commands/serve.ts"), "utf8");
  const body = src.slice(src.indexOf("export async function runServeCommand"), src.indexOf("export default defineCommand"));
  const mods = [...body.matchAll(/await import\("([^"]+)"\)/g)].map((m) => resolve(root, "cli/commands", m[1]!));
  expect(mods.length).toBeGreaterThanOrEqual(4);
  const dir = mkdtempSync(join(tmpdir(), "rx-serve-graph-"));
  try {
    const entry = join(dir, "entry.ts");
    writeFileSync(entry, mods.map((m) => `import ${JSON.stringify(m)};\n`).join(""));
    const r = await Bun.build({ entrypoints: [entry], target: "bun", metafile: true } as Parameters<typeof Bun.build>[0]);
    expect(r.success).toBe(true);
    const inputs = (r as unknown as { metafile: { inputs: Record<string, { imports: { path: string; kind: string }[] }> } }).metafile.inputs;
    const start = Object.keys(inputs).find((k) => k.endsWith("entry.ts"))!;
    // The static closure: dynamic imports load later, when a feature is used.
    const seen = new Set<string>();
    const parent = new Map<string, string>();
    const todo = [start];
    while (todo.length) {
      const k = todo.pop()!;
      if (seen.has(k)) continue;
      seen.add(k);
      for (const i of inputs[k]?.imports ?? []) {
        if (i.kind === "dynamic-import" || !inputs[i.path] || seen.has(i.path)) continue;
        if (!parent.has(i.path)) parent.set(i.path, k);
        todo.push(i.path);
      }
    }
    const chain = (k: string) => {
      const out = [k];
      for (let p = parent.get(k); p; p = parent.get(p)) out.push(p);
      return out.join(" <- ");
    };
    const heavy = [...seen].filter((k) => /node_modules\/(@modelcontextprotocol\/sdk|zod|ajv)\//.test(k));
    expect(heavy.slice(0, 1).map(chain)).toEqual([]);
    // Hono and the server's own routes are what it does need.
    expect([...seen].some((k) => k.includes("node_modules/hono/"))).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
