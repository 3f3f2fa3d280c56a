// Provider-side web_search passthrough (anthropic kind): the server tool is
// offered first, the function tools keep the cache breakpoint, and the tool
// list is the same on every step.
import { afterEach, expect, test } from "bun:test";
import { startScriptedAnthropic } from "../../testing/scripted-llm-anthropic.ts";
import { createProvider } from "../index.ts";
import { findPreset, presetEntryFields } from "../../setup/presets.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("web_search = true adds the server tool ahead of the function tools, byte-identical across steps", async () => {
  const llm = await startScriptedAnthropic([{ text: "one" }, { text: "two" }]);
  cleanups.push(() => llm.close());
  const p = createProvider({ name: "a", kind: "anthropic", model: "claude-x", base_url: llm.url, web_search: true }, { secret: () => undefined });
  const tools = [{ name: "read_file", description: "Read", inputSchema: { type: "object" } }];
  await p.chat({ system: "S", tools, messages: [{ role: "user", content: "search" }] }, {}, new AbortController().signal);
  await p.chat({ system: "S", tools, messages: [{ role: "user", content: "search" }, { role: "assistant", content: "one" }, { role: "user", content: "more" }] }, {}, new AbortController().signal);
  const [a, b] = llm.chatRequests().map((r) => r.body.tools);
  expect(a[0]).toEqual({ type: "web_search_20250305", name: "web_search", max_uses: 5 });
  expect(a[1]).toMatchObject({ name: "read_file", cache_control: { type: "ephemeral" } });
  expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  // The Anthropic and DeepSeek-Anthropic presets turn it on.
  expect(presetEntryFields(findPreset("deepseek-anthropic"), "deepseek-chat").web_search).toBe(true);
  expect(presetEntryFields(findPreset("anthropic"), "claude-sonnet-4-5").web_search).toBe(true);
});

const search = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "bun release" } };
const found = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_1",
  content: [{ type: "web_search_result", url: "https://bun.sh/blog", title: "Bun blog", encrypted_content: "ENC123", page_age: null }],
};

test("stop_reason pause_turn: the turn is continued with the assistant content sent back as it came, and the parts form one answer", async () => {
  const llm = await startScriptedAnthropic([
    { text: "Let me search. ", serverBlocks: [search, found], finishReason: "pause_turn", usage: { input: 1000, output: 50 } },
    { text: "Bun 2 is out.", usage: { input: 1500, cacheHit: 1000, output: 30 } },
  ]);
  cleanups.push(() => llm.close());
  const p = createProvider({ name: "a", kind: "anthropic", model: "claude-x", base_url: llm.url, web_search: true }, { secret: () => undefined });
  const streamed: string[] = [];
  const r = await p.chat({ system: "S", tools: [], messages: [{ role: "user", content: "what's new in bun?" }] }, { onText: (t) => streamed.push(t) }, new AbortController().signal);
  expect(r.message.content).toBe("Let me search. Bun 2 is out.");
  expect(streamed.join("")).toBe("Let me search. Bun 2 is out.");
  expect(r.finishReason).toBe("stop");
  expect(r.usage).toMatchObject({ inputTokens: 2500, outputTokens: 80, cacheHitTokens: 1000 });
  const reqs = llm.chatRequests();
  expect(reqs).toHaveLength(2);
  // The continuation: the same request with the paused assistant content appended verbatim.
  const strip = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === "cache_control" ? undefined : v)));
  const second = strip(reqs[1]!.body.messages);
  expect(second).toEqual([...strip(reqs[0]!.body.messages), { role: "assistant", content: [{ type: "text", text: "Let me search. " }, search, found] }]);
});

test("server_tool_use and web_search_tool_result blocks stay in the history sent on later steps (engine over the scripted Anthropic server)", async () => {
  const { engineFor, makeSandbox } = await import("../../engine/tests/helpers.ts");
  const llm = await startScriptedAnthropic([
    { text: "Searching. ", serverBlocks: [search, found], finishReason: "pause_turn" },
    { text: "Bun 2 is out." },
    { text: "Nothing else." },
  ]);
  const sb = makeSandbox();
  const engine = engineFor(sb, llm.url, { providerExtra: { kind: "anthropic", web_search: true } });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const s = await engine.createSession();
  expect(await s.submit("what's new in bun?")).toBe("done");
  await s.submit("anything else?");
  const third = llm.chatRequests()[2]!.body.messages;
  const assistant = third.find((m: any) => m.role === "assistant");
  expect(assistant.content.map((b: any) => b.type)).toEqual(["text", "server_tool_use", "web_search_tool_result", "text"]);
  expect(assistant.content[1]).toEqual(search);
  expect(assistant.content[2]).toEqual(found);
});
