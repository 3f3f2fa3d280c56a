// `@path` imports inside instruction files: nested up to 5 levels; cycles,
// deeper nesting and paths outside the workspace refused with a warning
// naming file:line; mentions of nothing stay text.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { instructionsBlock, scanInstructionFiles } from "../instructions.ts";

function dirs() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-imports-")));
  const ws = join(root, "ws");
  const user = join(root, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(user, { recursive: true });
  return { root, ws, user };
}
const put = (p: string, t: string) => {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, t);
};

test("imports are read after the file that names them, nested; code spans, fences and unknown @names are left alone", () => {
  const { ws, user } = dirs();
  put(join(ws, "AGENTS.md"), "Rules.\nSee @docs/style.md and ask @alice.\n`@docs/ignored.md` and\n```\n@docs/ignored.md\n```\n");
  put(join(ws, "docs/style.md"), "STYLE: tabs. More in @./naming.md\n");
  put(join(ws, "docs/naming.md"), "NAMING: camelCase\n");
  put(join(ws, "docs/ignored.md"), "IGNORED\n");
  const scan = scanInstructionFiles(ws, user);
  expect(scan.warnings).toEqual([]);
  expect(scan.files.map((f) => [f.path, f.importedFrom ?? null])).toEqual([
    [join(ws, "AGENTS.md"), null],
    [join(ws, "docs/style.md"), `${join(ws, "AGENTS.md")}:2`],
    [join(ws, "docs/naming.md"), `${join(ws, "docs/style.md")}:1`],
  ]);
  const block = instructionsBlock(scan.files)!;
  expect(block).toContain(`<file path="${join(ws, "docs/style.md")}" scope="project" imported-from="${join(ws, "AGENTS.md")}:2">\nSTYLE: tabs.`);
  expect(block).not.toContain("IGNORED");
});

test("a cycle is refused with a warning naming file:line, and each file is read once", () => {
  const { ws, user } = dirs();
  put(join(ws, "AGENTS.md"), "top @a.md\n");
  put(join(ws, "a.md"), "A\n\nthen @b.md\n");
  put(join(ws, "b.md"), "B back to @a.md\n");
  const scan = scanInstructionFiles(ws, user);
  expect(scan.files.map((f) => f.text.trim())).toEqual(["top @a.md", "A\n\nthen @b.md", "B back to @a.md"]);
  expect(scan.warnings).toEqual([`${join(ws, "b.md")}:1: import @a.md refused: it would import ${join(ws, "a.md")} again (a cycle)`]);
});

test("imports nest up to 5 levels; the sixth is refused", () => {
  const { ws, user } = dirs();
  put(join(ws, "AGENTS.md"), "@l1.md\n");
  for (let i = 1; i <= 6; i++) put(join(ws, `l${i}.md`), `level ${i} @l${i + 1}.md\n`);
  const scan = scanInstructionFiles(ws, user);
  expect(scan.files.map((f) => f.text.trim().split(" ").slice(0, 2).join(" "))).toEqual(["@l1.md", "level 1", "level 2", "level 3", "level 4", "level 5"]);
  expect(scan.warnings).toEqual([`${join(ws, "l5.md")}:1: import @l6.md refused: imports nest deeper than 5 levels`]);
});

test("a path outside the workspace (directly or through a symlink) is refused", () => {
  const { root, ws, user } = dirs();
  put(join(root, "secret.md"), "OUTSIDE\n");
  symlinkSync(join(root, "secret.md"), join(ws, "link.md"));
  put(join(ws, "AGENTS.md"), "read @../secret.md first\nand @link.md\n");
  const scan = scanInstructionFiles(ws, user);
  expect(scan.files.map((f) => f.text.trim())).toEqual(["read @../secret.md first\nand @link.md"]);
  expect(scan.warnings).toEqual([
    `${join(ws, "AGENTS.md")}:1: import @../secret.md refused: ${join(root, "secret.md")} is outside the workspace`,
    `${join(ws, "AGENTS.md")}:2: import @link.md refused: ${join(root, "secret.md")} is outside the workspace`,
  ]);
});

const hasMkfifo = Bun.spawnSync(["sh", "-c", "command -v mkfifo"]).exitCode === 0;
if (!hasMkfifo) console.warn("SKIPPED instruction import of a FIFO: no mkfifo on this host");
test.skipIf(!hasMkfifo)("an import naming a FIFO stays text and a huge one is cut, neither read without end (in a child process: a hang fails, not stalls)", async () => {
  const { ws, user } = dirs();
  put(join(ws, "AGENTS.md"), "See @pipe.md and @big.md\n");
  expect(Bun.spawnSync(["mkfifo", join(ws, "pipe.md")]).exitCode).toBe(0);
  put(join(ws, "big.md"), "y".repeat(8 * 1024 * 1024));
  const script = `const { scanInstructionFiles } = await import(${JSON.stringify(join(import.meta.dir, "../instructions.ts"))});
const s = scanInstructionFiles(${JSON.stringify(ws)}, ${JSON.stringify(user)});
console.log(JSON.stringify({ warnings: s.warnings, files: s.files.map((f) => [f.path, f.text.length]) }));`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  let killed = false;
  const timer = setTimeout(() => ((killed = true), proc.kill("SIGKILL")), 15_000);
  const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearTimeout(timer);
  expect(killed).toBe(false);
  const scan = JSON.parse(out);
  expect(scan.warnings).toEqual([]);
  expect(scan.files.map((f: [string, number]) => f[0])).toEqual([join(ws, "AGENTS.md"), join(ws, "big.md")]);
  expect(scan.files[1][1]).toBeLessThan(64 * 1024 + 100);
}, 30_000);
