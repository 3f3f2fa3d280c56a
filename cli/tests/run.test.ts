import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../core/testing/scripted-llm-anthropic.ts";
import { makeCliEnv, mainTs, runCli, type CliEnv } from "./run-helpers.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";

// Several tests start the CLI three times (run, kill, resume): 60 s each was a bet on an idle machine.
setDefaultTimeout(120_000);

let llm: ScriptedServer;
let ce: CliEnv;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0], extraToml?: string) {
  llm = await startScriptedOpenAI(steps);
  ce = makeCliEnv(llm.url, { extraToml });
  cleanups.push(() => llm.close(), () => ce.cleanup());
}

describe("reasonix run (headless) against the scripted server", () => {
  test("a multi-step task edits files with the built-in tools; text output; exit 0", async () => {
    await setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "app.js" } }] },
      { toolCalls: [{ name: "edit_file", arguments: { path: "app.js", old_string: "return 1;", new_string: "return 2;" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "docs/CHANGES.md", content: "- answer is 2\n" } }] },
      { text: "Changed the answer to 2 and noted it in docs/CHANGES.md." },
    ]);
    writeFileSync(join(ce.workspace, "app.js"), "function answer() {\n  return 1;\n}\n");
    const r = await runCli(ce, ["run", "--auto", "make", "answer", "return", "2"]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Changed the answer to 2");
    expect(readFileSync(join(ce.workspace, "app.js"), "utf8")).toBe("function answer() {\n  return 2;\n}\n");
    expect(readFileSync(join(ce.workspace, "docs/CHANGES.md"), "utf8")).toBe("- answer is 2\n");
    const reqs = llm.chatRequests();
    expect(reqs).toHaveLength(4);
    expect(reqs[0]!.body.messages.at(-1)).toEqual({ role: "user", content: "make answer return 2" });
    expect(reqs[0]!.headers.authorization).toBe("Bearer sk-cli-test");
    const toolNames = reqs[0]!.body.tools.map((t: any) => t.function.name);
    for (const n of ["read_file", "write_file", "edit_file", "multi_edit", "move_file", "ls", "glob", "grep", "bash", "todo_write"]) expect(toolNames).toContain(n);
  });

  test("prompt from stdin; --output-format json", async () => {
    await setup([{ text: "The diff renames a variable." }], "prices = { input = 1.0, output = 4.0, currency = \"USD\" }");
    const r = await runCli(ce, ["run", "--output-format", "json"], { stdin: "explain this diff\n-a\n+b\n" });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ reason: "done", exit_code: 0, result: "The diff renames a variable." });
    expect(out.session_id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(out.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheHitTokens: 0 });
    expect(out.cost).toEqual({ turn: 0.00018, total: 0.00018, currency: "USD" });
    expect(llm.chatRequests()[0]!.body.messages.at(-1).content).toBe("explain this diff\n-a\n+b");
  });

  test("--output-format stream-json prints one JSON event per line", async () => {
    await setup([
      { toolCalls: [{ name: "todo_write", arguments: { todos: [{ content: "list files", status: "in_progress" }] } }, { name: "ls", arguments: {} }] },
      { text: "listed" },
    ]);
    const r = await runCli(ce, ["run", "--output-format", "stream-json", "list files"]);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const kinds = events.map((e) => e.type);
    expect(events.find((e) => e.type === "todo")).toEqual({ type: "todo", items: [{ content: "list files", status: "in_progress" }] });
    expect(kinds[0]).toBe("session");
    expect(kinds).toContain("turn_start");
    expect(kinds).toContain("tool_call");
    expect(kinds).toContain("tool_result");
    expect(kinds.at(-1)).toBe("turn_end");
    expect(events.at(-1)).toMatchObject({ reason: "done" });
  });

  test("usage errors exit 2", async () => {
    await setup([]);
    const noPrompt = await runCli(ce, ["run"], { stdin: "" });
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain("no prompt");
    const both = await runCli(ce, ["run", "-c", "--resume", "x", "hi"]);
    expect(both.code).toBe(2);
    const badMode = await runCli(ce, ["run", "--permission-mode", "sometimes", "hi"]);
    expect(badMode.code).toBe(2);
    expect(llm.chatRequests()).toHaveLength(0);
  });

  test("a provider failure exits 1 with the key hint", async () => {
    await setup([{ kind: "error", status: 401, message: "Authentication Fails" }]);
    const r = await runCli(ce, ["run", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("check api_key_env SCRIPTED_KEY");
  });

  test("--max-steps stops with exit 3", async () => {
    await setup([1, 2].map((n) => ({ toolCalls: [{ name: "ls", arguments: { path: "." } }], text: `step ${n}` })));
    const r = await runCli(ce, ["run", "--max-steps", "1", "--output-format", "json", "loop"]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ reason: "max_steps", exit_code: 3 });
    expect(llm.chatRequests()).toHaveLength(1);
  });

  test("headless ask fails closed (exit 3) naming --auto; --auto lets the same write through", async () => {
    await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "x" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "x" } }] },
      { text: "written" },
    ]);
    const denied = await runCli(ce, ["run", "write out.txt"]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain("--auto");
    expect(existsSync(join(ce.workspace, "out.txt"))).toBe(false);
    const allowed = await runCli(ce, ["run", "-y", "write out.txt"]);
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(ce.workspace, "out.txt"), "utf8")).toBe("x");
  });

  test("writing outside the workspace needs --add-dir, even with --auto", async () => {
    await setup([
      (req) => ({ toolCalls: [{ name: "write_file", arguments: { path: join(req.body.messages[0].content.match(/Workspace: (.*)/)[1], "..", "shared", "out.txt"), content: "o" } }] }),
      (req) => ({ toolCalls: [{ name: "write_file", arguments: { path: join(req.body.messages[0].content.match(/Workspace: (.*)/)[1], "..", "shared", "out.txt"), content: "o" } }] }),
      { text: "done" },
    ]);
    const shared = join(ce.workspace, "..", "shared");
    mkdirSync(shared);
    const denied = await runCli(ce, ["run", "--auto", "write outside"]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain("--add-dir");
    expect(existsSync(join(shared, "out.txt"))).toBe(false);
    const allowed = await runCli(ce, ["run", "--auto", "--add-dir", shared, "write outside"]);
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(shared, "out.txt"), "utf8")).toBe("o");
  });

  test("kill -9 the moment a turn is reported done: the session log holds the whole turn", async () => {
    await setup([{ text: "the acknowledged answer" }]);
    const proc = Bun.spawn([process.execPath, mainTs, "run", "--output-format", "stream-json", "one question"], { cwd: ce.workspace, env: ce.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    cleanups.push(() => proc.kill("SIGKILL"));
    // Read the event stream until turn_end arrives, then kill at once (the log's sync may still be in flight
    // for everything before it; the turn is only reported once all of it is on disk).
    const reader = proc.stdout.getReader();
    let out = "";
    for (let i = 0; i < 10_000 && !out.includes('"type":"turn_end"'); i++) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    proc.kill("SIGKILL");
    await proc.exited;
    expect(out).toContain('"type":"turn_end"');
    const sessionId = JSON.parse(out.split("\n")[0]!).sessionId as string;
    const show = JSON.parse((await runCli(ce, ["sessions", "show", sessionId, "--json"])).stdout);
    expect(show.turns.map((t: any) => t.prompt)).toEqual(["one question"]);
    expect(show.history).toContainEqual(expect.objectContaining({ type: "assistant", text: "the acknowledged answer" }));
    expect(show.history.at(-1)).toMatchObject({ type: "turn_end", reason: "done" });
  });

  test("kill -9 of a running `reasonix run`, then --resume and -c finish the work", async () => {
    await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "first.txt", content: "before the crash\n" } }] },
      { text: "never delivered", delayMs: 60_000 },
    ]);
    const proc = Bun.spawn([process.execPath, mainTs, "run", "--auto", "--output-format", "stream-json", "two step job"], {
      cwd: ce.workspace,
      env: ce.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    cleanups.push(() => proc.kill("SIGKILL"));
    // Wait until the second model request is in flight: the write is committed by then.
    await pollFor("the second model request", () => llm.chatRequests().length, (n) => n >= 2);
    expect(llm.chatRequests()).toHaveLength(2);
    proc.kill("SIGKILL");
    expect(await proc.exited).not.toBe(0);
    const out = await new Response(proc.stdout).text();
    const sessionId = JSON.parse(out.split("\n")[0]!).sessionId as string;
    expect(readFileSync(join(ce.workspace, "first.txt"), "utf8")).toBe("before the crash\n");

    llm.push({ toolCalls: [{ name: "write_file", arguments: { path: "second.txt", content: "after resume\n" } }] }, { text: "Both files are written." });
    const resumed = await runCli(ce, ["run", "--auto", "--resume", sessionId, "continue"]);
    expect(resumed.stderr).not.toContain("error:");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Both files are written.");
    expect(readFileSync(join(ce.workspace, "second.txt"), "utf8")).toBe("after resume\n");
    const sent = llm.chatRequests()[2]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(sent[1].content).toBe("two step job");
    expect(sent.at(-1).content).toBe("continue");

    // -c picks the same (latest) session for this workspace.
    llm.push({ text: "still here" });
    const cont = await runCli(ce, ["run", "-c", "--output-format", "json", "anything else?"]);
    expect(cont.code).toBe(0);
    expect(JSON.parse(cont.stdout).session_id).toBe(sessionId);

    const show = await runCli(ce, ["sessions", "show", sessionId, "--json"]);
    const shown = JSON.parse(show.stdout);
    expect(shown.turns.map((t: any) => t.prompt)).toEqual(["two step job", "continue", "anything else?"]);
    const ends = shown.history.filter((e: any) => e.type === "turn_end");
    expect(ends[0]).toMatchObject({ reason: "error" });
    expect(ends[0].error).toContain("interrupted");
  });
});

describe("reasonix run with kind = \"anthropic\"", () => {
  test("the same task over the Messages API", async () => {
    llm = await startScriptedAnthropic([
      { reasoning: "Write it.", toolCalls: [{ name: "write_file", arguments: { path: "a.md", content: "# A\n" } }] },
      { text: "Wrote a.md." },
    ]);
    ce = makeCliEnv(llm.url, { kind: "anthropic" });
    cleanups.push(() => llm.close(), () => ce.cleanup());
    const r = await runCli(ce, ["run", "-y", "write a.md"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Wrote a.md.");
    expect(r.stderr).toContain("Write it.");
    expect(readFileSync(join(ce.workspace, "a.md"), "utf8")).toBe("# A\n");
    const reqs = llm.chatRequests();
    expect(reqs[0]!.headers["x-api-key"]).toBe("sk-cli-test");
    expect(reqs[1]!.body.messages[1].content[0]).toMatchObject({ type: "thinking", thinking: "Write it." });
  });
});

describe("interrupting a run", () => {
  test("Ctrl-C (SIGINT) cancels the turn, records it and exits 130", async () => {
    await setup([{ text: "too slow", delayMs: 60_000 }]);
    const proc = Bun.spawn([process.execPath, mainTs, "run", "--output-format", "stream-json", "wait"], { cwd: ce.workspace, env: ce.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    cleanups.push(() => proc.kill("SIGKILL"));
    await pollFor("the prompt at the model", () => llm.chatRequests().length, (n) => n >= 1);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    const events = (await new Response(proc.stdout).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(events.at(-1)).toMatchObject({ type: "turn_end", reason: "cancelled" });
    const show = JSON.parse((await runCli(ce, ["sessions", "show", events[0].sessionId, "--json"])).stdout);
    expect(show.history.at(-1)).toMatchObject({ type: "turn_end", reason: "cancelled" });
  });
});

describe("reasonix sessions", () => {
  test("list/show/rewind/delete with --json", async () => {
    await setup([
      { toolCalls: [{ name: "read_file", arguments: { path: "r.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "r.txt", content: "one\n" } }, { name: "write_file", arguments: { path: "new.txt", content: "n\n" } }] },
      { toolCalls: [{ name: "move_file", arguments: { source: "m.txt", destination: "moved/m.txt" } }] },
      { text: "ok" },
    ]);
    writeFileSync(join(ce.workspace, "r.txt"), "zero\n");
    writeFileSync(join(ce.workspace, "m.txt"), "mmm\n");
    const run = await runCli(ce, ["run", "-y", "--output-format", "json", "overwrite r.txt"]);
    expect(run.code).toBe(0);
    expect(readFileSync(join(ce.workspace, "r.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ce.workspace, "m.txt"))).toBe(false);
    const id = JSON.parse(run.stdout).session_id as string;
    const list = JSON.parse((await runCli(ce, ["sessions", "list", "--json"])).stdout);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id, turns: 1, title: "overwrite r.txt", workspace: ce.workspace });
    const text = await runCli(ce, ["sessions", "show", id]);
    expect(text.stdout).toContain("[turn 1] overwrite r.txt");
    const rw = await runCli(ce, ["sessions", "rewind", id, "1", "--json"]);
    expect(rw.code).toBe(0);
    expect(JSON.parse(rw.stdout)).toMatchObject({ turn: 1, mode: "both" });
    expect(readFileSync(join(ce.workspace, "r.txt"), "utf8")).toBe("zero\n");
    expect(existsSync(join(ce.workspace, "new.txt"))).toBe(false);
    expect(readFileSync(join(ce.workspace, "m.txt"), "utf8")).toBe("mmm\n");
    expect(existsSync(join(ce.workspace, "moved/m.txt"))).toBe(false);
    expect((await runCli(ce, ["sessions", "rewind", id, "7"])).code).toBe(2);
    const del = await runCli(ce, ["sessions", "delete", id, "--json"]);
    expect(JSON.parse(del.stdout)).toEqual({ deleted: [id] });
    expect(JSON.parse((await runCli(ce, ["sessions", "list", "--json"])).stdout)).toEqual([]);
    expect((await runCli(ce, ["sessions", "show", id])).code).toBe(2);
  });
});
