// A real engine and session host over the scripted model (HTTP), with the
// built-in tools and bash unsandboxed, cleaned up after each test.
import { afterEach, setDefaultTimeout } from "bun:test";
import { SessionHost } from "../session-host.ts";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import { registerBuiltinTools } from "../../tools/builtin/index.ts";
import { engineFor, makeSandbox, providerConfig } from "../../engine/tests/helpers.ts";
import { steerMessage } from "../../engine/session.ts";
import { expect } from "bun:test";

/** Idle now, the next prompt's turn carries `steered` (as guidance, after the prompt) in its one model request: request `n`. */
export async function nextPromptCarries(rig: { host: SessionHost; llm: { chatRequests(): { body: any }[] } }, n: number, steered: string): Promise<void> {
  expect(rig.host.busy).toBe(false);
  expect(await rig.host.submit("next")).toBe("done");
  expect(rig.llm.chatRequests()[n]!.body.messages.slice(-2)).toEqual([
    { role: "user", content: "next" },
    { role: "user", content: steerMessage(steered) },
  ]);
}

export function hostRig() {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  setDefaultTimeout(60_000);
  async function setup(script: Parameters<typeof startScriptedOpenAI>[0], o: { maxSteps?: number } = {}) {
    const sb = makeSandbox();
    const llm = await startScriptedOpenAI(script);
    const tools = new ToolRegistry();
    registerBuiltinTools(tools);
    const engine = engineFor(sb, llm.url, { config: { ...providerConfig(llm.url), sandbox: { bash: "off" } }, tools, permissionMode: "ask", ...o });
    cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
    const host = new SessionHost(engine, await engine.createSession());
    cleanups.push(() => host.session.close());
    return { sb, llm, host };
  }
  return { cleanups, setup };
}
