// MCP elicitation through the engine: a server's elicitation/create during a
// tool call reaches the front end as an elicitation_request event and the
// answer goes back to the server; it is declined (never accepted) in a
// headless run and when the front end never offered to show forms, an answer
// that does not fit the form is refused naming the field, and cancelling the
// turn cancels the request.
import { describe, expect, test } from "bun:test";
import type { EngineEvent, EngineSession } from "../../engine/types.ts";
import { probeSandbox } from "../../sandbox/index.ts";
import { engineWithChangingServer, testScope } from "./fixtures/engine-setup.ts";

const sandbox = await probeSandbox();
if (!sandbox.available) console.warn(`SKIPPED MCP elicitation tests: the OS sandbox is unavailable (${sandbox.cause})`);

const cleanups = testScope();
const setup = (headless: boolean) => engineWithChangingServer(cleanups, [{ toolCalls: [{ name: "mcp__chg__ask", arguments: {} }] }, { text: "done" }], { headless, prefix: "rx-mcp-elicit-" });

/** The tool result the model got back for the ask call. */
const toolResult = (events: EngineEvent[]) => (events.find((e) => e.type === "tool_result") as Extract<EngineEvent, { type: "tool_result" }> | undefined)?.output ?? "";

function record(s: EngineSession, onRequest?: (e: Extract<EngineEvent, { type: "elicitation_request" }>) => void) {
  const events: EngineEvent[] = [];
  s.subscribe((e) => {
    events.push(e);
    if (e.type === "elicitation_request") onRequest?.(e);
  });
  return events;
}

describe.skipIf(!sandbox.available)("MCP elicitation", () => {
  test("the request reaches the front end; a bad answer is refused naming the field; the accepted form (defaults filled) reaches the server", async () => {
    const { engine } = await setup(false);
    const s = await engine.createSession();
    s.offerElicitation!(true);
    const refusals: string[] = [];
    const events = record(s, (e) => {
      expect(e).toMatchObject({ server: "chg", message: "Who is asking?" });
      expect(e.callId).toBeDefined();
      expect((e.schema.properties as Record<string, unknown>).name).toBeDefined();
      for (const bad of [{ count: 2 }, { name: "Ada", count: "many" }, { name: "Ada", extra: 1 }]) {
        try {
          s.answerElicitation!(e.id, { action: "accept", content: bad });
        } catch (err) {
          refusals.push((err as Error).message);
        }
      }
      s.answerElicitation!(e.id, { action: "accept", content: { name: "Ada" } });
    });
    expect(await s.submit("ask me")).toBe("done");
    expect(refusals).toEqual(['field "name" is required', 'field "count": must be a whole number', 'field "extra" is not in the form']);
    expect(toolResult(events)).toBe('elicited {"action":"accept","content":{"name":"Ada","count":3}}');
    const resolved = events.find((e) => e.type === "elicitation_resolved");
    expect(resolved).toMatchObject({ action: "accept" });
    // The request came while the tool call ran, after its announcement.
    const kinds = events.map((e) => e.type);
    expect(kinds.indexOf("tool_call")).toBeLessThan(kinds.indexOf("elicitation_request"));
  }, 60_000);

  test("the user can decline", async () => {
    const { engine } = await setup(false);
    const s = await engine.createSession();
    s.offerElicitation!(true);
    const events = record(s, (e) => s.answerElicitation!(e.id, { action: "decline" }));
    expect(await s.submit("ask me")).toBe("done");
    expect(toolResult(events)).toBe('elicited {"action":"decline"}');
  }, 60_000);

  test("headless: declined at once, with a warning; never accepted", async () => {
    const { engine } = await setup(true);
    const s = await engine.createSession();
    s.offerElicitation!(true);
    const events = record(s);
    expect(await s.submit("ask me")).toBe("done");
    expect(events.some((e) => e.type === "elicitation_request")).toBe(false);
    expect(toolResult(events)).toBe('elicited {"action":"decline"}');
    const w = events.find((e) => e.type === "warning" && e.code === "elicitation_declined") as { message: string } | undefined;
    expect(w?.message).toBe('MCP server "chg" asked for input ("Who is asking?"); declined: this run cannot ask (headless)');
  }, 60_000);

  test("a front end that never offered to show forms: declined, with a warning", async () => {
    const { engine } = await setup(false);
    const s = await engine.createSession();
    const events = record(s);
    expect(await s.submit("ask me")).toBe("done");
    expect(toolResult(events)).toBe('elicited {"action":"decline"}');
    expect(events.some((e) => e.type === "warning" && /this front end cannot show input forms/.test(e.message))).toBe(true);
  }, 60_000);

  test("cancelling the turn while the form is open cancels the request", async () => {
    const { engine } = await setup(false);
    const s = await engine.createSession();
    s.offerElicitation!(true);
    const events = record(s, () => setTimeout(() => s.cancel(), 0));
    expect(await s.submit("ask me")).toBe("cancelled");
    expect(events.find((e) => e.type === "elicitation_resolved")).toMatchObject({ action: "cancel" });
    expect(s.history().some((e) => e.type === "elicitation_request")).toBe(false);
  }, 60_000);
});
