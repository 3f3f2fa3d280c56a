// `npm run bench -- <name> [args]`: runs scripts/bench/<name>.ts with the
// project's pinned Bun, so benchmarks work in a fresh clone (no global bun).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const dir = join(import.meta.dir, "bench");
const names = readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3)).sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !existsSync(join(dir, `${name}.ts`))) {
  process.stderr.write(`${name ? `no benchmark "${name}"\n` : ""}usage: npm run bench -- <name> [args]\nbenchmarks: ${names.join(", ")}\n`);
  process.exit(2);
}
const p = Bun.spawn([process.execPath, join(dir, `${name}.ts`), ...rest], { stdio: ["inherit", "inherit", "inherit"] });
process.exit(await p.exited);
