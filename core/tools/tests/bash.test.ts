import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { bashTool, HeadTail } from "../builtin/bash.ts";
import { fixture, type Fixture } from "./helpers.ts";

let fx: Fixture;
afterEach(() => fx?.cleanup());

const status = await probeSandbox();
const haveSandbox = status.available;
if (!haveSandbox) console.warn(`OS sandbox unavailable (${status.cause}); enforce-mode bash tests are skipped`);
const enforced = haveSandbox ? test : test.skip;

/** Run with some variables set in our own environment, restoring them afterwards. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe("bash under the OS sandbox (enforce)", () => {
  enforced("runs in the workspace, reports exit codes, can write only inside the write roots", async () => {
    fx = fixture({ sandbox: { bash: "enforce" } });
    const r = await fx.run(bashTool, { command: `pwd; echo inside > in.txt; echo outside > ${fx.outside}/out.txt; exit 3`, description: "probe" });
    expect(r.ok).toBe(false);
    expect(r.output.split("\n")[0]).toBe(fx.ws);
    expect(r.output).toContain("[exit code 3]");
    expect(fx.read("in.txt")).toBe("inside\n");
    expect(existsSync(join(fx.outside, "out.txt"))).toBe(false);
    const ok = await fx.run(bashTool, { command: "echo fine" });
    expect(ok).toEqual({ ok: true, output: "fine" });
  });
  enforced("Reasonix state and forbid_read paths are invisible", async () => {
    fx = fixture({ sandbox: { bash: "enforce", forbid_read: ["private"] } });
    fx.write("private/p.txt", "PRIVATE");
    fx.write(join(fx.home, ".env"), "X_KEY=sk-secret\n");
    // The fixture's policy names fx.home as Reasonix state; the sandbox masks it.
    const r = await fx.run(bashTool, { command: `cat private/p.txt ${fx.home}/.env 2>&1; true` });
    expect(r.output).not.toContain("PRIVATE");
    expect(r.output).not.toContain("sk-secret");
  });
  enforced("protected files the command creates are moved aside and reported", async () => {
    fx = fixture({ sandbox: { bash: "enforce" } });
    const r = await fx.run(bashTool, { command: "echo 'mode = \"yolo\"' > reasonix.toml" });
    expect(r.output).toContain(`created protected ${join(fx.ws, "reasonix.toml")}`);
    expect(existsSync(join(fx.ws, "reasonix.toml"))).toBe(false);
  });
  enforced("the session TMPDIR is private and persists between calls", async () => {
    fx = fixture({ sandbox: { bash: "enforce" } });
    const a = await fx.run(bashTool, { command: 'test "$TMPDIR" = "$TMP" && test "$TMP" = "$TEMP" && echo carried > "$TMPDIR/note" && echo ok' });
    expect(a.output).toBe("ok");
    expect(readFileSync(join(fx.ctx.tmpDir, "note"), "utf8")).toBe("carried\n");
    const b = await fx.run(bashTool, { command: 'cat "$TMPDIR/note"' });
    expect(b.output).toBe("carried");
  });
  enforced("refuses to run when enforce has no working backend", async () => {
    // Run the tool in a child whose /usr/bin/bwrap is an empty, non-executable file.
    fx = fixture();
    const script = fx.write("child.ts", `
      import { bashTool } from ${JSON.stringify(join(import.meta.dir, "../builtin/bash.ts"))};
      const ws = ${JSON.stringify(fx.ws)};
      const r = await bashTool.run({ command: "echo RAN > ran.txt" }, {
        workspace: ws, sessionId: "s", tmpDir: ${JSON.stringify(join(fx.outside, "tmp"))}, signal: new AbortController().signal,
        beforeWrite: async () => {}, readStamps: new Map(), config: { sandbox: { bash: "enforce" } }, extraWriteRoots: [],
      });
      console.log(JSON.stringify(r));
    `);
    const empty = fx.write(join(fx.outside, "not-bwrap"), "");
    const bwrap = status.path!;
    const child = Bun.spawnSync([bwrap, "--dev-bind", "/", "/", "--bind", empty, bwrap, "--", process.execPath, script], {
      stdout: "pipe", stderr: "pipe", env: { ...process.env, REASONIX_HOME: fx.home },
    });
    const out = child.stdout.toString().trim();
    if (child.exitCode !== 0 || out === "") throw new Error(`child failed: ${child.stderr.toString()}`);
    const r = JSON.parse(out.split("\n").pop()!);
    expect(r.ok).toBe(false);
    expect(r.output).toContain('sandbox.bash = "enforce"');
    expect(r.output).toContain('bash = "off"');
    expect(existsSync(join(fx.ws, "ran.txt"))).toBe(false);
  });
});

describe("bash environment", () => {
  for (const mode of ["off", "enforce"] as const) {
    const t = mode === "enforce" ? enforced : test;
    t(`credentials and shell start-up hooks are removed (${mode})`, async () => {
      fx = fixture({ sandbox: { bash: mode, env_passthrough: ["MY_VISIBLE_VAR"] }, config: { providers: [{ name: "p", api_key_env: "ODD_PROVIDER_CRED" }] } });
      const hook = fx.write(join(fx.outside, "hook.sh"), "echo HOOK-RAN\n");
      writeFileSync(join(fx.home, ".env"), "STORED_IN_DOTENV=x\n");
      const r = await withEnv(
        {
          REASONIX_HOME: fx.home,
          DEEPSEEK_API_KEY: "sk-deepseek",
          OPENAI_API_KEY: "sk-openai",
          GITHUB_TOKEN: "ghp-x",
          SOME_SERVICE_PASSWORD: "hunter2",
          ODD_PROVIDER_CRED: "odd-secret",
          STORED_IN_DOTENV: "dotenv-secret",
          BASH_ENV: hook,
          "BASH_FUNC_npm%%": "() { echo HIJACKED; }",
          MY_VISIBLE_VAR: "visible",
        },
        () => fx.run(bashTool, { command: "env; type npm 2>&1; echo done" }),
      );
      for (const leaked of ["sk-deepseek", "sk-openai", "ghp-x", "hunter2", "odd-secret", "dotenv-secret", "HOOK-RAN", "HIJACKED", "BASH_FUNC"]) {
        expect(r.output).not.toContain(leaked);
      }
      expect(r.output).toContain("MY_VISIBLE_VAR=visible");
      expect(r.output).toContain("done");
    });
  }
  test("unconfined mode (off) still gets the session TMPDIR", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const r = await fx.run(bashTool, { command: 'echo "$TMPDIR|$TMP|$TEMP"' });
    expect(r.output).toBe(`${fx.ctx.tmpDir}|${fx.ctx.tmpDir}|${fx.ctx.tmpDir}`);
  });
});

describe("bash limits", () => {
  test("timeout kills the command and everything it started", async () => {
    fx = fixture({ sandbox: { bash: "off" }, config: { tools: { bash_timeout_seconds: 1 } } });
    const pidFile = join(fx.ws, "bg.pid");
    const started = Date.now();
    const r = await fx.run(bashTool, { command: `sleep 300 & echo $! > ${pidFile}; echo started; wait` });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.ok).toBe(false);
    expect(r.output).toContain("started");
    expect(r.output).toContain("[timed out after 1 s; the command was killed]");
    const pid = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try {
        process.kill(pid, 0);
        await Bun.sleep(100);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });
  test("a requested timeout overrides the default; 0 in config means no cap", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const r = await fx.run(bashTool, { command: "sleep 30", timeout_seconds: 1 });
    expect(r.output).toContain("[timed out after 1 s");
    const f = fixture({ sandbox: { bash: "off" }, config: { tools: { bash_timeout_seconds: 0 } } });
    try {
      expect(await f.run(bashTool, { command: "sleep 1.2; echo slow" })).toEqual({ ok: true, output: "slow" });
    } finally {
      f.cleanup();
    }
  });
  test("long output keeps its head and tail around a truncation marker", async () => {
    fx = fixture({ sandbox: { bash: "off" }, config: { tools: { bash_output_limit: 1000 } } });
    const r = await fx.run(bashTool, { command: "seq 1 100000" });
    expect(r.ok).toBe(true);
    expect(r.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(r.output.endsWith("99999\n100000")).toBe(true);
    expect(r.output).toMatch(/\[… \d+ characters of output truncated …\]/);
    expect(r.output.length).toBeLessThan(1100);
  });
  test("cancelling the turn kills the command", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    const ac = new AbortController();
    fx.ctx.signal = ac.signal;
    setTimeout(() => ac.abort(), 300);
    const started = Date.now();
    const r = await fx.run(bashTool, { command: "sleep 30" });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.output).toContain("[cancelled");
  });
  test("HeadTail keeps exact halves and counts what it dropped", () => {
    const h = new HeadTail(10);
    for (const c of "abcdefghijklmnopqrstuvwxyz") h.push(c);
    expect(h.text()).toBe("abcde\n[… 16 characters of output truncated …]\nvwxyz");
    const small = new HeadTail(10);
    small.push("short");
    expect(small.text()).toBe("short");
  });
  test("bad input", async () => {
    fx = fixture({ sandbox: { bash: "off" } });
    expect((await fx.run(bashTool, {})).output).toContain('missing required field "command"');
    expect((await fx.run(bashTool, { command: "true", timeout_seconds: 0 })).output).toContain("at least 1");
  });
});
