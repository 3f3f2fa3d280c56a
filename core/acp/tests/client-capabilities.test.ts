// Client capability routing: with fs/* the file tools read the editor's
// unsaved buffers and write into the editor (not the disk), still under the
// path policy; with terminal/* bash runs in the editor's terminal.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptStep } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";
import type * as acp from "@agentclientprotocol/sdk";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: ScriptStep[], caps: acp.ClientCapabilities) {
  const llm = await startScriptedOpenAI(steps);
  const env = makeAcpEnv(llm.url);
  const c = connect(env, undefined, { permissionMode: "auto" });
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  await c.conn.initialize(initParams(caps));
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const prompt = (text: string) => c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text }] });
  return { llm, env, ...c, sessionId: s.sessionId, prompt };
}

const toolOutputs = (llm: { chatRequests(): { body: any }[] }) =>
  llm.chatRequests().flatMap((r) => r.body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content as string));

test("fs: read_file sees the editor's unsaved buffer; edit_file's write arrives at the editor, not on disk", async () => {
  const { env, editor, llm, prompt } = await setup(
    [
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "edit_file", arguments: { path: "a.txt", old_string: "unsaved", new_string: "edited" } }] },
      { text: "done" },
    ],
    { fs: { readTextFile: true, writeTextFile: true } },
  );
  const file = join(env.workspace, "a.txt");
  writeFileSync(file, "saved text\n");
  editor.buffers.set(file, "unsaved text\n");
  expect((await prompt("edit a.txt")).stopReason).toBe("end_turn");
  const outs = toolOutputs(llm);
  expect(outs[0]).toContain("unsaved text");
  expect(outs[0]).not.toContain("saved text\n");
  expect(outs.at(-1)).toMatch(/^Edited a.txt/);
  expect(editor.reads.map((r) => r.path)).toContain(file);
  expect(editor.writes).toEqual([{ sessionId: expect.any(String), path: file, content: "edited text\n" }]);
  expect(readFileSync(file, "utf8")).toBe("saved text\n");
});

test("fs: a write outside the workspace is refused before it reaches the editor", async () => {
  const { editor, prompt } = await setup(
    [{ toolCalls: [{ name: "write_file", arguments: { path: "/etc/reasonix-acp-test.txt", content: "x" } }] }, { text: "refused" }],
    { fs: { readTextFile: true, writeTextFile: true } },
  );
  await prompt("write outside");
  expect(editor.writes).toEqual([]);
  const failed = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed") as any;
  expect(failed.content[0].content.text).toMatch(/outside the writable roots/);
});

test("without the fs capability the tools use the disk", async () => {
  const { env, editor, prompt } = await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "d.txt", content: "disk\n" } }] }, { text: "ok" }], {});
  await prompt("write");
  expect(editor.writes).toEqual([]);
  expect(readFileSync(join(env.workspace, "d.txt"), "utf8")).toBe("disk\n");
});

test("terminal: bash runs in the editor's terminal with the sandbox command line and only Reasonix's own variables", async () => {
  const { env, editor, llm, prompt } = await setup(
    [{ toolCalls: [{ name: "bash", arguments: { command: "echo from-terminal; pwd; exit 3" } }] }, { text: "ran" }],
    { terminal: true },
  );
  await prompt("run it");
  expect(editor.terminals).toHaveLength(1);
  const t = editor.terminals[0]!;
  expect([t.command, ...(t.args ?? [])].slice(-2)).toEqual(["-c", "echo from-terminal; pwd; exit 3"]);
  expect(t.cwd).toBe(env.workspace);
  expect((t.env ?? []).map((v) => v.name).sort()).toEqual(["TEMP", "TMP", "TMPDIR"]);
  const out = toolOutputs(llm)[0]!;
  expect(out).toContain("from-terminal");
  expect(out).toContain(env.workspace);
  expect(out).toContain("[exit code 3]");
  // The editor was told which terminal shows the call, live.
  const call = editor.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call") as any;
  const embedded = editor.updates.map((u) => u.update).find((u: any) => u.sessionUpdate === "tool_call_update" && u.content?.[0]?.type === "terminal") as any;
  expect(embedded).toMatchObject({ toolCallId: call.toolCallId, content: [{ type: "terminal", terminalId: "term-1" }] });
});

test("terminal: the editor's own environment (its tokens) never reaches bash; env_passthrough keeps bash local", async () => {
  const { editor, llm, prompt } = await setup([{ toolCalls: [{ name: "bash", arguments: { command: "env" } }] }, { text: "ran" }], { terminal: true });
  await prompt("show env");
  expect(editor.terminals).toHaveLength(1);
  const out = toolOutputs(llm)[0]!;
  expect(out).toContain("PATH=");
  expect(out).not.toContain("ghp-editor-secret");
  expect(out).not.toContain("editor-db-secret");
  expect(editor.terminals[0]!.command).toBe("env");
  expect(editor.terminals[0]!.args?.[0]).toBe("-i");
});
