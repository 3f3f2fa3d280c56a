// The user's shell line (`!command`, core/engine/user-shell.ts) in a real
// session against the scripted model: its output is in the session's log, so a
// resume or a model switch keeps it for the next prompt and a reload shows its
// card (one transcript fold); a PreToolUse hook that blocks bash blocks it too.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import { registerBuiltinTools } from "../../tools/builtin/index.ts";
import { foldTranscript } from "../../protocol/fold.ts";
import { replay } from "../../sessions/replay.ts";
import type { SessionRecord } from "../../sessions/records.ts";
import { homePaths } from "../../home.ts";
import { engineFor, makeSandbox, providerConfig } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
setDefaultTimeout(60_000);

async function setup(script: Parameters<typeof startScriptedOpenAI>[0], hooks: Record<string, unknown>[] = []) {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(script);
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  const config = { ...providerConfig(llm.url), sandbox: { bash: "off" }, hooks };
  const engine = engineFor(sb, llm.url, { config, tools, permissionMode: "auto" });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  return { sb, llm, engine };
}

const lastUser = (body: { messages: { role: string; content: string }[] }) => body.messages.filter((m) => m.role === "user").at(-1)!.content;

test("a shell line's output survives a resume: the next prompt after it carries it, once; the reloaded history shows its card", async () => {
  const { llm, engine } = await setup([{ text: "seen" }, { text: "again" }]);
  const s = await engine.createSession();
  const r = await s.runShell("echo resumed-out-37");
  expect(r.ok).toBe(true);
  const id = s.id;
  await s.close();

  const again = await engine.resumeSession(id);
  cleanups.push(() => again.close());
  // The card is in the stored history, as one bash tool block marked as the user's.
  const blocks = foldTranscript(again.history()).blocks.filter((b) => b.kind === "tool");
  expect(blocks).toHaveLength(1);
  expect(blocks[0]).toMatchObject({ kind: "tool", name: "bash", input: { command: "echo resumed-out-37" }, status: "ok", user: true });
  expect((blocks[0] as { output?: string }).output).toContain("resumed-out-37");

  expect(await again.submit("what did it print?")).toBe("done");
  const first = lastUser(llm.chatRequests()[0]!.body);
  expect(first).toContain("$ echo resumed-out-37\nresumed-out-37");
  expect(first.endsWith("what did it print?")).toBe(true);
  expect(await again.submit("and now?")).toBe("done");
  expect(lastUser(llm.chatRequests()[1]!.body)).toBe("and now?");
  // Sent once, also after another resume.
  const id2 = again.id;
  await again.close();
  const third = await engine.resumeSession(id2);
  cleanups.push(() => third.close());
  expect(foldTranscript(third.history()).blocks.filter((b) => b.kind === "tool")).toHaveLength(1);
});

test("a model switch (the conversation reopened) keeps the pending shell output", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "after the switch" }]);
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  const config = providerConfig(llm.url);
  const second = { ...(config.providers as Record<string, unknown>[])[0]!, name: "other" };
  (config.providers as Record<string, unknown>[]).push(second);
  const engine = engineFor(sb, llm.url, { config: { ...config, sandbox: { bash: "off" } }, tools, permissionMode: "auto" });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  await s.runShell("echo switched-out-58");
  const other = await engine.resumeSession(s.id, { model: "other" });
  cleanups.push(() => other.close());
  expect(other.model).toBe("other");
  expect(await other.submit("go on")).toBe("done");
  expect(lastUser(llm.chatRequests()[0]!.body)).toContain("$ echo switched-out-58\nswitched-out-58");
});

test("a reader ignores a log record type it does not know (older readers and the new shell record)", async () => {
  const { sb, engine } = await setup([]);
  const s = await engine.createSession();
  await s.runShell("echo logged-12");
  const id = s.id;
  await s.close();
  const path = join(homePaths(sb.home).sessions, `${id}.jsonl`);
  const records = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as SessionRecord);
  expect(records.some((r) => r.t === ("shell" as string))).toBe(true);
  // A record from a newer engine: skipped, the rest replays.
  appendFileSync(path, `${JSON.stringify({ t: "from_the_future", x: 1 })}\n`);
  const st = replay(readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l)));
  expect(st.pendingShell?.map((p) => p.command)).toEqual(["echo logged-12"]);
});

test("a PreToolUse hook that blocks bash blocks the user's shell line: it never runs and nothing reaches the model", async () => {
  const { sb, llm, engine } = await setup([{ text: "ok" }], [{ event: "PreToolUse", matcher: "bash", command: "echo 'no shell today' >&2; exit 2" }]);
  const s = await engine.createSession();
  cleanups.push(() => s.close());
  const r = await s.runShell("touch hooked-44.txt");
  expect(r.ok).toBe(false);
  expect(r.refused).toBe(true);
  expect(r.output).toContain("blocked by a PreToolUse hook: no shell today");
  expect(existsSync(join(sb.workspace, "hooked-44.txt"))).toBe(false);
  expect(await s.submit("hello")).toBe("done");
  expect(lastUser(llm.chatRequests()[0]!.body)).toBe("hello");
});

test("a PreToolUse hook sees the shell line as a bash call with its command", async () => {
  const dir = mkdtempSync(join(tmpdir(), "reasonix-shell-hook-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "pre.jsonl");
  const { engine } = await setup([], [{ event: "PreToolUse", matcher: "bash", command: `cat >> '${log}'` }]);
  const s = await engine.createSession();
  cleanups.push(() => s.close());
  expect((await s.runShell("echo seen-by-hook")).ok).toBe(true);
  const got = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  expect(got).toHaveLength(1);
  expect(got[0]).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "bash", tool_input: { command: "echo seen-by-hook" } });
});
