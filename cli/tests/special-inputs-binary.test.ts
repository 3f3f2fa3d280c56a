// Project inputs that are not regular files, through the compiled binary: a
// reasonix.toml, .mcp.json, hooks file, command or skill that is a FIFO
// (reading it waits for a writer forever) or a symlink to /dev/zero (reading
// it never ends, memory grows without bound). `reasonix trust` and
// `reasonix run` refuse them at once, naming the path and the reason, before
// reading a byte; an oversized regular file is refused the same way.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeScriptedHome } from "../../core/testing/scripted-home.ts";
import { builtDist } from "../../scripts/lib/built-dist.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

let binary: string;
let llm: ScriptedServer;
const cleanups: (() => unknown)[] = [];
const hasMkfifo = Bun.spawnSync(["sh", "-c", "command -v mkfifo"]).exitCode === 0;
if (!hasMkfifo) console.warn("SKIPPED FIFO project inputs: no mkfifo on this host");

beforeAll(async () => {
  llm = await startScriptedOpenAI([]);
  binary = (await builtDist()).binary;
}, BUILD_HOOK_MS); // the first suite to ask builds the binary
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await llm.close();
});

/** Each input, and the run that reads it: configs load at start, a command or skill when it is used. */
const INPUTS: Record<string, string> = { "reasonix.toml": "hello", ".mcp.json": "hello", ".reasonix/hooks.toml": "hello", ".reasonix/commands/deploy.md": "/deploy", ".reasonix/skills/pdf/SKILL.md": "/pdf" };
/** Files parsed at start have the 1 MiB limit; other inputs are only hashed (in chunks, up to 64 MiB). */
const PARSED = ["reasonix.toml", ".mcp.json", ".reasonix/hooks.toml"];

function workspaceWith(rel: string, kind: "fifo" | "zero" | "huge") {
  const h = makeScriptedHome(llm.url, { prefix: "rx-special-", key: "sk-special" });
  cleanups.push(() => h.cleanup());
  const abs = join(h.workspace, ...rel.split("/"));
  mkdirSync(dirname(abs), { recursive: true });
  if (kind === "fifo") expect(Bun.spawnSync(["mkfifo", abs]).exitCode).toBe(0);
  else if (kind === "zero") symlinkSync("/dev/zero", abs);
  else writeFileSync(abs, `# ${"x".repeat(5 * 1024 * 1024)}\n`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { REASONIX_HOME: h.home, NO_COLOR: "1" });
  return { ...h, abs, env };
}

/** A hang is killed after this and reported as such: the only bound is the test's own timeout (a loaded machine may take seconds per start; a hang never ends). */
const HANG_MS = 100_000;

/** Run the binary; a hang is killed after HANG_MS and reported as such. */
async function run(w: ReturnType<typeof workspaceWith>, args: string[]) {
  const proc = Bun.spawn([binary, ...args], { cwd: w.workspace, env: w.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let killed = false;
  const timer = setTimeout(() => ((killed = true), proc.kill("SIGKILL")), HANG_MS);
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code: killed ? `killed after ${HANG_MS / 1000} s` : code, stderr };
}

const REASON = { fifo: "is a FIFO (named pipe), not a regular file", zero: "is a character device, not a regular file", huge: "over the 1 MiB limit of a project input" };

describe("project inputs that are not regular files (compiled binary)", () => {
  for (const kind of ["fifo", "zero", "huge"] as const) {
    test.skipIf(kind === "fifo" && !hasMkfifo)(`${kind}: reasonix trust --yes and reasonix run refuse at once, naming the path and the reason`, async () => {
      const results = await Promise.all(
        Object.entries(INPUTS)
          .filter(([rel]) => kind !== "huge" || PARSED.includes(rel))
          .flatMap(([rel, prompt]) =>
          [["trust", "--yes"], ["run", prompt]].map(async (args) => {
            const w = workspaceWith(rel, kind);
            const r = await run(w, args);
            return { rel, args: args.join(" "), code: r.code, named: r.stderr.includes(w.abs) && r.stderr.includes(REASON[kind]), stderr: r.stderr.slice(0, 400) };
          }),
        ),
      );
      for (const r of results) expect({ ...r, stderr: r.named ? "" : r.stderr }).toEqual({ rel: r.rel, args: r.args, code: 1, named: true, stderr: "" });
    }, 120_000);
  }

  test.skipIf(!hasMkfifo)("a trusted workspace whose reasonix.toml becomes a FIFO is listed as changed by trust --list, and run refuses it", async () => {
    const w = workspaceWith("reasonix.toml", "huge");
    writeFileSync(w.abs, "[agent]\nmax_steps = 10\n");
    expect((await run(w, ["trust", "--yes"])).code).toBe(0);
    const listed = await run(w, ["trust", "--list"]);
    expect(listed.code).toBe(0);
    rmSync(w.abs);
    expect(Bun.spawnSync(["mkfifo", w.abs]).exitCode).toBe(0);
    const proc = Bun.spawn([binary, "trust", "--list", "--json"], { cwd: w.workspace, env: w.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), HANG_MS);
    const [out, , code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(JSON.parse(out).map((e: any) => [e.workspace, e.status])).toEqual([[w.workspace, "changed"]]);
    const r = await run(w, ["run", "hello"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${w.abs}: is a FIFO (named pipe), not a regular file`);
  }, 5 * HANG_MS + 20_000); // five runs one after another
});
