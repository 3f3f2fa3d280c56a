// The one-time question about usage counters in the terminal chat (tmux):
// it shows the data boundary with [Y/n]; text typed into the composer is not
// taken as an answer; `n` saves "no" and nothing is ever sent; `y` saves
// "yes" and the ping at exit (none before) passes the allow-list; CI means no question and
// no request; an answered question is not asked again.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatFixture, hasTmux, quit, ready, type Pane } from "./chat-helpers.ts";
import { saveChoice } from "../../core/telemetry/store.ts";
import { checkedPayloads, telemetryCollector, telemetryEnv, telemetryToml, type Collector } from "./telemetry-helpers.ts";

const tmuxOk = hasTmux();
if (!tmuxOk) console.log("SKIPPED telemetry-consent: tmux is not installed");
const f = chatFixture();
const QUESTION = "Share anonymous usage counters with the Reasonix maintainers? [Y/n]";
const ARMED = "y or Enter: share · n: don't share";

async function start(answers: number, extra: Record<string, string> = {}): Promise<Collector> {
  const c = telemetryCollector(204);
  await f.setup(Array.from({ length: answers }, (_, i) => ({ text: `answer number ${i + 1}` })), telemetryToml(c.url));
  const env = telemetryEnv(f.ce, extra);
  for (const k of Object.keys(f.ce.env)) if (!(k in env)) delete f.ce.env[k];
  Object.assign(f.ce.env, env);
  return c;
}

const choice = () => JSON.parse(readFileSync(join(f.ce.home, "telemetry", "choice.json"), "utf8")).choice as string;

async function talk(p: Pane, n: number): Promise<void> {
  p.send(`question ${n} about zebra-project`);
  await p.waitFor(`answer number ${n}`);
}

test.skipIf(!tmuxOk)("n: the choice is saved and nothing is ever sent, not on a later start either", async () => {
  const c = await start(2);
  try {
    let p = f.chat();
    const screen = await p.waitForCurrent(QUESTION);
    expect(screen).toContain("Never prompts, answers, code");
    await p.waitForCurrent(ARMED);
    p.type("n");
    await p.waitFor("usage counters: not shared", { all: true });
    expect(p.screen()).not.toContain(QUESTION);
    expect(choice()).toBe("no");
    await talk(p, 1);
    await quit(p);
    p.kill();
    // Asked once: the next chat goes straight to the composer.
    p = f.chat();
    await ready(p);
    await talk(p, 2);
    expect(p.all()).not.toContain(QUESTION);
    await quit(p);
    expect(c.bodies).toHaveLength(0);
  } finally { c.stop(); }
});

test.skipIf(!tmuxOk)("text typed while the question is up stays a message; y then shares, and the ping passes the allow-list", async () => {
  const c = await start(1);
  try {
    const p = f.chat();
    await p.waitForCurrent(ARMED);
    // A message starting with y or n is typed, not taken as an answer.
    p.type("yes please look at zebra-project");
    await p.waitFor("your message stays in the input");
    expect(p.screen()).toContain(QUESTION);
    p.keys("Enter");
    await p.waitFor("answer number 1");
    expect(p.screen()).toContain(QUESTION);
    await p.waitForCurrent(ARMED);
    p.type("y");
    await p.waitFor("usage counters: shared", { all: true });
    expect(choice()).toBe("yes");
    // Nothing goes out while the chat runs (its start, a turn, the answer): only at exit.
    expect(c.bodies).toHaveLength(0);
    await quit(p);
    expect(c.bodies).toHaveLength(1);
    const [payload] = checkedPayloads(c.bodies[0]!);
    expect(payload!.surface).toBe("chat");
    expect(c.bodies[0]).not.toContain("zebra");
  } finally { c.stop(); }
});

test.skipIf(!tmuxOk)("CI set: no question and no request", async () => {
  const c = await start(1, { CI: "true" });
  try {
    const p = f.chat();
    await ready(p);
    await talk(p, 1);
    await quit(p);
    expect(p.all()).not.toContain(QUESTION);
    expect(c.bodies).toHaveLength(0);
  } finally { c.stop(); }
});

test.skipIf(!tmuxOk)("a yes that cannot be saved: said so, and nothing is sent", async () => {
  const c = await start(1);
  try {
    // A file where the telemetry directory would go: nothing can be saved there.
    mkdirSync(f.ce.home, { recursive: true });
    writeFileSync(join(f.ce.home, "telemetry"), "not a directory\n");
    const p = f.chat();
    await p.waitForCurrent(ARMED);
    p.type("y");
    await p.waitFor("could not save your choice: nothing is sent", { all: true });
    await talk(p, 1);
    await quit(p);
    expect(c.bodies).toHaveLength(0);
  } finally { c.stop(); }
});

test.skipIf(!tmuxOk)("line mode: no question; with a yes saved earlier, its counters go out at exit", async () => {
  const c = await start(1);
  try {
    saveChoice(f.ce.home, "yes");
    const p = f.chat(["chat", "--line-mode"]);
    await p.waitFor("line mode");
    await talk(p, 1);
    expect(c.bodies).toHaveLength(0);
    await quit(p);
    expect(p.all()).not.toContain(QUESTION);
    expect(c.bodies).toHaveLength(1);
    const [payload] = checkedPayloads(c.bodies[0]!);
    expect(payload).toMatchObject({ surface: "chat", counters: { finish_reason: { stop: 1 } } });
  } finally { c.stop(); }
});
