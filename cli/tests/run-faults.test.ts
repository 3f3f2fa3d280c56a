// `reasonix run` against faulty endpoints: what a consumer of stdout, of
// stream-json and of the exit code sees when attempts fail, streams stall,
// and answers end truncated, filtered, refused or empty.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { traceMarked } from "../../core/testing/fresh-wait.ts";
import { startScriptedOpenAI, type ReplyStep, type ScriptedServer, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { startScriptedAnthropic } from "../../core/testing/scripted-llm-anthropic.ts";
import { startScriptedResponses } from "../../core/testing/scripted-llm-responses.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

// Each test runs `bun cli/main.ts` one to five times; on a loaded machine one run can take seconds.
setDefaultTimeout(120_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Kind = "openai" | "anthropic" | "responses";
const starters = { openai: startScriptedOpenAI, anthropic: startScriptedAnthropic, responses: startScriptedResponses };

async function setup(kind: Kind, steps: ScriptStep[], extraToml = ""): Promise<{ llm: ScriptedServer; ce: CliEnv }> {
  const llm = await starters[kind](steps);
  const ce = makeCliEnv(llm.url, { kind: kind as "openai", extraToml });
  cleanups.push(() => llm.close(), () => ce.cleanup());
  return { llm, ce };
}

const LONG = "This long answer will be cut off in the middle of a sentence and never finished.";
const GOOD = "Complete answer after the drop.";
// Each fault streams part of LONG before failing (chunk size 7: several deltas reach the client).
const faults: Record<string, ReplyStep> = {
  "clean EOF mid-answer": { text: LONG, cutAfter: 5 },
  "connection reset mid-answer": { text: LONG, cutAfter: 5, cutMode: "reset" },
  "malformed chunk": { text: LONG, malformedAfter: 5 },
  "in-stream error event": { text: LONG, streamErrorAfter: 5 },
  "stall mid-answer": { text: LONG, stallAfter: 5 },
};

/**
 * A reset cuts only once the client has handed a delta on (its REASONIX_TRACE mark): Bun's
 * fetch drops the bytes its HTTP thread read but JS did not yet take when the RST comes,
 * and the attempt would fail as "cannot reach", with no partial answer to discard.
 */
function resetAfterADelta(ce: CliEnv, step: ReplyStep): ReplyStep {
  if (step.cutMode !== "reset") return step;
  const trace = join(ce.home, "trace.jsonl");
  ce.env.REASONIX_TRACE = trace;
  return { ...step, cutWhen: traceMarked(trace, "model:first-delta") };
}

describe("retry without residue: stdout is exactly the committed answer", () => {
  for (const kind of ["openai", "anthropic", "responses"] as const) {
    for (const [name, fault] of Object.entries(faults)) {
      test(`${kind}: ${name}, then a good attempt`, async () => {
        const { ce, llm } = await setup(kind, [], "idle_timeout_seconds = 0.5");
        llm.push(resetAfterADelta(ce, fault), { text: GOOD });
        const r = await runCli(ce, ["run", "say it"]);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(`${GOOD}\n`);
        expect(r.stderr).toContain("retrying");
        expect(r.stderr).toContain("discarded the partial answer of attempt 1");
        expect(llm.chatRequests()).toHaveLength(2);
      });
    }
  }

  test("every attempt fails: nothing on stdout, exit 1", async () => {
    const cut = { text: LONG, cutAfter: 5 };
    const { ce } = await setup("openai", [cut, cut, cut, cut, cut]);
    const r = await runCli(ce, ["run", "say it"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("gave up after 5 attempts");
  }, 30_000);

  test("stream-json: the failed attempt's deltas are followed by attempt_discarded, then retry", async () => {
    const { ce } = await setup("anthropic", [{ text: LONG, reasoning: "thinking hard", cutAfter: 11 }, { text: GOOD }]);
    const r = await runCli(ce, ["run", "--output-format", "stream-json", "say it"]);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const kinds = events.map((e) => e.type);
    const discard = kinds.indexOf("attempt_discarded");
    expect(discard).toBeGreaterThan(kinds.indexOf("text_delta"));
    expect(kinds[discard + 1]).toBe("retry");
    expect(events[discard]).toMatchObject({ type: "attempt_discarded", attempt: 1 });
    // A consumer that drops deltas on attempt_discarded rebuilds exactly the answer.
    let text = "";
    for (const e of events) {
      if (e.type === "text_delta") text += e.text;
      if (e.type === "attempt_discarded") text = "";
    }
    expect(text).toBe(GOOD);
    expect(events.find((e) => e.type === "assistant").text).toBe(GOOD);
  });
});

describe("stalls", () => {
  test("a slow first byte shows a waiting notice on stderr; a stall past first_byte_timeout_seconds is retried and named", async () => {
    const { ce } = await setup("openai", [{ text: "x", stallAfter: 0 }, { text: GOOD, delayMs: 700 }], "first_byte_timeout_seconds = 1.2");
    const r = await runCli(ce, ["run", "say it"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${GOOD}\n`);
    expect(r.stderr).toContain("waiting for the model: nothing received for");
    expect(r.stderr).toContain("first_byte_timeout_seconds = 1.2");
  });

  test("stream-json carries waiting events", async () => {
    const { ce } = await setup("anthropic", [{ text: GOOD, delayMs: 600 }], "first_byte_timeout_seconds = 1");
    const r = await runCli(ce, ["run", "--output-format", "stream-json", "say it"]);
    expect(r.code).toBe(0);
    const waiting = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "waiting");
    expect(waiting[0]).toMatchObject({ phase: "first_byte", timeoutSeconds: 1, setting: "first_byte_timeout_seconds" });
  });
});

describe("finish reasons", () => {
  test("openai length on text: one continuation round; stdout and json result are the joined answer", async () => {
    const { ce, llm } = await setup("openai", [{ text: "The first half", finishReason: "length" }, { text: " and the rest." }], "max_output_tokens = 32");
    const r = await runCli(ce, ["run", "--output-format", "json", "say it"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ reason: "done", result: "The first half and the rest." });
    const cont = llm.chatRequests()[1]!.body.messages.at(-1);
    expect(cont.role).toBe("user");
    expect(cont.content).toContain("cut off by the output limit (max_tokens 32)");
  });

  test("text mode: the continuation joins the cut answer on stdout", async () => {
    const { ce } = await setup("anthropic", [{ text: "The first half", finishReason: "max_tokens" }, { text: " and the rest." }]);
    const r = await runCli(ce, ["run", "say it"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The first half and the rest.\n");
  });

  test("sessions show renders the saved session from the one transcript fold: the continued answer is one answer", async () => {
    const { ce } = await setup("anthropic", [{ text: "The first half", finishReason: "max_tokens" }, { text: " and the rest." }]);
    const r = await runCli(ce, ["run", "--output-format", "json", "say it"]);
    expect(r.code).toBe(0);
    const shown = await runCli(ce, ["sessions", "show", JSON.parse(r.stdout).session_id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("[turn 1] say it");
    expect(shown.stdout).toContain("The first half and the rest.\n");
  });

  test("still cut off after the continuation: exit 1, reason length", async () => {
    const cutTwice = (): ScriptStep[] => [{ text: "cut", finishReason: "max_tokens" }, { text: " still cut", finishReason: "max_tokens" }];
    const { ce, llm } = await setup("anthropic", cutTwice());
    const r = await runCli(ce, ["run", "--output-format", "json", "say it"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.reason).toBe("length");
    expect(out.error).toContain("cut off by the output limit (max_tokens 8192; finish reason length)");
    // Text mode, cut twice again (not an exhausted script's HTTP 500s, retried for seconds).
    llm.push(...cutTwice());
    const t = await runCli(ce, ["run", "again"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain("error: the answer was cut off by the output limit");
    expect(llm.pending()).toBe(0);
  });

  test("text mode names the reason on stderr for a truncated answer", async () => {
    const { ce } = await setup("openai", [{ text: "cut", finishReason: "length" }, { text: " still cut", finishReason: "length" }]);
    const r = await runCli(ce, ["run", "say it"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: the answer was cut off by the output limit");
  });

  test("content_filter: exit 1, reason content_filter", async () => {
    const { ce } = await setup("openai", [{ text: "I was about to", finishReason: "content_filter" }]);
    const r = await runCli(ce, ["run", "--output-format", "json", "say it"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ reason: "content_filter", exit_code: 1 });
    expect(JSON.parse(r.stdout).error).toContain("content filter");
  });

  test("anthropic refusal: exit 1, reason refusal", async () => {
    const { ce } = await setup("anthropic", [{ text: "I can't help with that.", finishReason: "refusal" }]);
    const r = await runCli(ce, ["run", "say it"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the model refused to answer");
    const j = await setup("anthropic", [{ text: "No.", finishReason: "refusal" }]);
    const rj = await runCli(j.ce, ["run", "--output-format", "json", "say it"]);
    expect(JSON.parse(rj.stdout).reason).toBe("refusal");
  });

  for (const kind of ["openai", "anthropic", "responses"] as const) {
    test(`${kind}: a tool call cut off at the output limit reaches the model as cut off, not as invalid JSON`, async () => {
      const { ce, llm } = await setup(
        kind,
        [{ toolCalls: [{ name: "write_file", arguments: '{"path": "big.txt", "content": "aaaa' }], finishReason: { openai: "length", anthropic: "max_tokens", responses: "max_output_tokens" }[kind] }, { text: "I will split it." }],
        "max_output_tokens = 100",
      );
      const r = await runCli(ce, ["run", "--auto", "write a big file"]);
      expect(r.code).toBe(0);
      const b = llm.chatRequests()[1]!.body;
      const sent = JSON.stringify(b.messages ?? b.input);
      expect(sent).toContain("cut off by the output limit (max_tokens 100)");
      expect(sent).not.toContain("not valid JSON");
    });
  }
});

describe("json output on a failed run", () => {
  test("usage is what was counted, never null: zeros when nothing was, the session's total on a resumed session", async () => {
    const { ce } = await setup("openai", [{ kind: "error", status: 400, message: "bad model" }, { text: "one" }, { kind: "error", status: 400, message: "bad again" }]);
    const first = JSON.parse((await runCli(ce, ["run", "--output-format", "json", "say it"])).stdout);
    expect([first.reason, first.usage]).toEqual(["error", { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 }]);
    const ok = JSON.parse((await runCli(ce, ["run", "--output-format", "json", "say it"])).stdout);
    expect(ok.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheHitTokens: 0 });
    const failed = JSON.parse((await runCli(ce, ["run", "-c", "--output-format", "json", "more"])).stdout);
    expect([failed.reason, failed.usage]).toEqual(["error", { inputTokens: 100, outputTokens: 20, cacheHitTokens: 0 }]);
  });
});

test("a stream without usage reports the tokens as unknown, not 0 in", async () => {
  const { ce } = await setup("openai", [{ text: "hello", usageStyle: "none" }, { text: "again", usageStyle: "none" }]);
  const r = await runCli(ce, ["run", "say it"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("this turn: tokens unknown (the provider reported no usage)");
  expect(r.stderr).not.toContain("0 tokens in");
  const j = JSON.parse((await runCli(ce, ["run", "-c", "--output-format", "json", "again"])).stdout);
  expect(j.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheHitTokens: 0, unreported: 2 });
});

describe("empty answers and reasoning on stderr", () => {
  test("an empty final answer exits 1 with a clear message", async () => {
    const { ce } = await setup("openai", [{ text: "" }, { text: "", reasoning: "only thoughts" }]);
    const r = await runCli(ce, ["run", "say it"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("the model returned an empty answer");
    const j = await runCli(ce, ["run", "--output-format", "json", "again"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ reason: "empty", exit_code: 1 });
  });

  test("reasoning printed on stderr ends with a newline before the next line", async () => {
    const { ce } = await setup("openai", [{ reasoning: "Let me look at the file", toolCalls: [{ name: "ls", arguments: {} }] }, { text: "done" }]);
    const r = await runCli(ce, ["run", "--auto", "look"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Let me look at the file\n• ls");
  });
});

describe("against a third-party mock server (@copilotkit/aimock)", () => {
  for (const kind of ["openai", "anthropic", "responses"] as const) {
    test(`${kind}: a mid-stream drop, then a good attempt: stdout is exactly the good answer`, async () => {
      const { LLMock } = await import("@copilotkit/aimock");
      const mock = new LLMock({ port: 0, host: "127.0.0.1" } as any);
      await mock.start();
      cleanups.push(() => mock.stop());
      mock.on({ userMessage: "say it", sequenceIndex: 0 } as any, { content: LONG }, { truncateAfterChunks: 4 } as any);
      mock.on({ userMessage: "say it", sequenceIndex: 1 } as any, { content: GOOD });
      const ce = makeCliEnv(kind === "anthropic" ? mock.url : `${mock.url}/v1`, { kind: kind as "openai" });
      cleanups.push(() => ce.cleanup());
      const r = await runCli(ce, ["run", "say it"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${GOOD}\n`);
      expect(r.stderr).toContain("retrying");
    });
  }
});
