// `/effort` in the terminal chat sets the live session's reasoning effort,
// which the next request carries (scripted server on 127.0.0.1).
import { afterEach, expect, test } from "bun:test";
import { engineFor, makeSandbox } from "../../core/engine/tests/helpers.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { slashCommands, type SlashContext } from "../chat/slash.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("/effort high, a bad value, /effort default", async () => {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ text: "one" }, { text: "two" }]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const session = await engine.createSession();
  const printed: string[] = [];
  const paint = new Proxy({}, { get: () => (s: string) => s }) as SlashContext["paint"];
  const ctx = { st: { session, engine }, paint, print: (l: string[]) => printed.push(...l), pick: async () => "low" } as unknown as SlashContext;
  const effort = slashCommands.find((c) => c.name === "effort")!;
  await effort.run(ctx, "high");
  expect(printed.at(-1)).toBe("reasoning effort high from the next request on");
  await session.submit("a");
  expect(llm.chatRequests()[0]!.body.reasoning_effort).toBe("high");
  await effort.run(ctx, "turbo");
  expect(printed.at(-1)).toContain('unknown reasoning effort "turbo"');
  expect(session.reasoningEffort).toBe("high");
  await effort.run(ctx, ""); // the picker answers "low"
  expect(session.reasoningEffort).toBe("low");
  await effort.run(ctx, "default");
  expect(session.reasoningEffort).toBeUndefined();
  await session.submit("b");
  expect(llm.chatRequests()[1]!.body.reasoning_effort).toBeUndefined();
});

test("the chat's effort follows into a new session, like the permission mode", async () => {
  const { ChatState } = await import("../chat/session.ts");
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([]);
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const st = new ChatState({ engine, config: {}, mode: "auto" });
  await st.attach(await engine.createSession(), () => {});
  st.session.setReasoningEffort!("max");
  const next = await st.newSession();
  expect(next.reasoningEffort).toBe("max");
  next.setReasoningEffort!(undefined);
  expect((await st.newSession()).reasoningEffort).toBeUndefined();
});
