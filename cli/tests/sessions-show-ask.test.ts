// `reasonix sessions show ID` and the model's `ask`: the question and the
// user's answer read as the chat shows them when the session is reopened
// (question, then "› answer"), never as a bare tool call with its JSON input
// and the tool's result; a question nobody answered says "not answered".
// Sessions made by the real engine (answered through the session host) and by
// the real CLI (a headless run, which cannot ask), shown by the real CLI.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { SessionHost } from "../../core/host/session-host.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { ToolRegistry } from "../../core/tools/registry.ts";
import { registerBuiltinTools } from "../../core/tools/builtin/index.ts";
import { engineFor, makeSandbox, providerConfig } from "../../core/engine/tests/helpers.ts";
import type { QuestionAnswer } from "../../core/protocol/events.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

setDefaultTimeout(120_000);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ASK = { question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }, { label: "MySQL" }], multi_select: true, allow_text: true };

/** A session whose one turn asks ASK and gets ANSWER, made by the real engine; then `sessions show` on it. */
async function answeredAndShown(answer: QuestionAnswer): Promise<string> {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "ask", arguments: ASK }] }, { text: "Noted." }]);
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  const engine = engineFor(sb, llm.url, { config: { ...providerConfig(llm.url), sandbox: { bash: "off" } }, tools, permissionMode: "ask" });
  cleanups.push(() => sb.cleanup(), () => llm.close(), () => engine.close());
  const host = new SessionHost(engine, await engine.createSession(), {});
  const turn = host.submit("set up the app");
  const [q] = await pollFor("the question waiting", () => host.questions(), (qs) => qs.length === 1);
  host.answerQuestion(q!.callId, answer);
  expect(await turn).toBe("done");
  const id = host.session.id;
  host.session.close();
  const ce: CliEnv = { home: sb.home, workspace: sb.workspace, env: { ...(process.env as Record<string, string>), REASONIX_HOME: sb.home, NO_COLOR: "1", REASONIX_LANG: "en" }, cleanup: () => {} };
  const shown = await runCli(ce, ["sessions", "show", id]);
  expect(shown.code).toBe(0);
  return shown.stdout;
}

test("an answered question: the question with its options, then the answer — not the ask call's JSON or the tool's result", async () => {
  const out = await answeredAndShown({ choices: ["MySQL", "Postgres"], text: " and a cache " });
  expect(out).toContain("[turn 1] set up the app\n? Which database? (Postgres · SQLite · MySQL)\n  › Postgres, MySQL, “and a cache”\nNoted.\n");
  expect(out).not.toContain("• ask");
  expect(out).not.toContain("The user chose");
});

test("a dismissed question says so", async () => {
  const out = await answeredAndShown({ dismissed: true });
  expect(out).toContain("? Which database? (Postgres · SQLite · MySQL)\n  › dismissed\nNoted.\n");
  expect(out).not.toContain("• ask");
});

test("a question no one could answer (headless run): not answered, and why", async () => {
  const llm = await startScriptedOpenAI([{ toolCalls: [{ name: "ask", arguments: { question: "Deploy to staging or production?", options: [{ label: "staging" }, { label: "production" }] } }] }]);
  const ce = makeCliEnv(llm.url);
  cleanups.push(() => llm.close(), () => ce.cleanup());
  const r = await runCli(ce, ["run", "--output-format", "json", "deploy it"]);
  expect(r.code).toBe(4);
  const shown = await runCli(ce, ["sessions", "show", JSON.parse(r.stdout).session_id]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("? Deploy to staging or production? (staging · production)\n  › not answered (The question was not answered: this run cannot ask the user (headless); the run stops here.)\n");
  expect(shown.stdout).not.toContain("• ask");
});
