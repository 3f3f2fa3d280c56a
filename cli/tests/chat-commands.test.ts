// The chat's keys and commands in a real tmux pane: Shift+Tab modes, the `/`
// menu (/model, /new, /rewind), `@` completion, history across restarts,
// queued input, and the session afterwards in `reasonix sessions`.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { answer, chatFixture, closeMenu, hasTmux, quit, ready } from "./chat-helpers.ts";
import { runCli } from "./run-helpers.ts";
import { CHROMIUM, haveChromium, LAUNCH_ARGS } from "../../core/serve/tests/ui-helpers.ts";
import { cleanup, tempDir } from "../../core/serve/tests/helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat command tests: tmux is not installed (apt-get install tmux)");
if (!haveChromium) console.warn(`SKIPPED the /web mode control in the browser: ${CHROMIUM} not found (Debian: chromium)`);

const f = chatFixture();
const { setup, chat } = f;

const lastUser = (i: number) => f.llm.chatRequests()[i]!.body.messages.filter((m: any) => m.role === "user").at(-1).content;
const sessionId = (s: string) => /session (\d{8}-\d{6}-[0-9a-f]{6})/.exec(s)?.[1];

describe.skipIf(skip)("reasonix chat keys and commands", () => {
  test("Shift+Tab cycles ask → auto → plan, shown in the status line; auto writes without asking", async () => {
    await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "auto.txt", content: "auto\n" } }] }, { text: "written in auto" }]);
    const p = chat();
    await ready(p);
    await p.waitFor("mode ask");
    p.keys("BTab");
    await p.waitFor("mode auto");
    p.send("write auto.txt");
    const s = await p.waitFor("written in auto");
    expect(s).not.toContain("Allow write_file");
    expect(readFileSync(join(f.ce.workspace, "auto.txt"), "utf8")).toBe("auto\n");
    p.keys("BTab");
    await p.waitFor("mode plan");
    p.keys("BTab");
    await p.waitFor("mode ask");
  });

  test("the / menu filters commands; /model switches the model for the same conversation; /new starts a new session", async () => {
    await setup(
      [{ text: "first answer" }, { text: "answer from other" }, { text: "fresh answer" }],
      ['[[providers]]', 'name = "other"', 'kind = "openai"', `base_url = "${"URL"}"`, 'model = "other-model"', 'api_key_env = "SCRIPTED_KEY"'].join("\n"),
    );
    // makeCliEnv wrote the second entry with a placeholder URL: point it at the scripted server.
    const cfgPath = join(f.ce.home, "config.toml");
    writeFileSync(cfgPath, readFileSync(cfgPath, "utf8").replace('"URL"', `"${f.llm.url}"`));
    const p = chat();
    await ready(p);
    const first = sessionId(p.screen())!;
    p.send("hello");
    await p.waitFor("first answer");
    p.type("/mo");
    let s = await p.waitFor("Permission mode for the rest");
    expect(s).toContain("Pick the model");
    expect(s).not.toContain("Commands and keys"); // /help is filtered out
    p.keys("C-u");
    await closeMenu(p);
    p.type("/model");
    // "/mo" listed /model too: wait for the menu of "/model" alone.
    await p.waitFor((x) => x.includes("Pick the model") && !x.includes("Permission mode for the rest"));
    p.keys("Enter"); // Enter on the menu runs the command
    await p.waitFor("Model");
    s = await p.waitFor("other-model");
    p.send("other");
    s = await p.waitFor("model other from here on");
    expect(sessionId(p.all())).toBe(first);
    await p.waitFor("other · mode ask");
    p.send("hi other");
    await p.waitFor("answer from other");
    expect(f.llm.chatRequests()[1]!.body.model).toBe("other-model");
    expect(f.llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["hello", "hi other"]);

    p.type("/new");
    await p.waitFor("Start a new conversation");
    p.keys("Enter");
    s = await p.waitFor((x) => (x.match(/session \d{8}-\d{6}-[0-9a-f]{6} ·/g) ?? []).length >= 2, { all: true });
    p.send("fresh");
    await p.waitFor("fresh answer");
    expect(f.llm.chatRequests()[2]!.body.messages.filter((m: any) => m.role === "user")).toHaveLength(1);
    expect(first).toBeDefined();
  });

  test("/rewind restores the files of an earlier prompt", async () => {
    await setup([{ toolCalls: [{ name: "write_file", arguments: { path: "made.txt", content: "made\n" } }] }, { text: "made it" }]);
    const p = chat(["chat", "--permission-mode", "auto"]);
    await ready(p);
    p.send("make a file");
    await p.waitFor("made it");
    expect(existsSync(join(f.ce.workspace, "made.txt"))).toBe(true);
    p.type("/rewind");
    await p.waitFor("Go back to before");
    p.keys("Enter");
    await p.waitFor("Rewind to before which prompt?");
    await p.waitFor("make a file");
    p.keys("Enter");
    await p.waitFor("Restore");
    p.keys("Enter"); // both
    const s = await p.waitFor("rewound to before turn");
    expect(s).toContain("made.txt");
    expect(existsSync(join(f.ce.workspace, "made.txt"))).toBe(false);
  });

  test("@ completes a path one level at a time and the reference reaches the model's request", async () => {
    await setup([{ text: "read it" }]);
    mkdirSync(join(f.ce.workspace, "src"));
    writeFileSync(join(f.ce.workspace, "src/app.ts"), "export {}\n");
    const p = chat();
    await ready(p);
    p.type("explain @sr");
    await p.waitFor("src/");
    p.keys("Tab");
    await p.waitFor("explain @src/");
    p.type("ap");
    await p.waitFor("app.ts");
    p.keys("Tab");
    await p.waitFor("explain @src/app.ts");
    p.keys("Enter");
    await p.waitFor("read it");
    expect(lastUser(0)).toContain("@src/app.ts");
  });

  test("input history survives a restart (0600 file); input typed during a turn and sent with Tab is queued and sent after it", async () => {
    // The first answer is held until the queued line is on screen: the turn is surely still running when Tab is pressed.
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    await setup([{ text: "slow answer", until: held }, { text: "queued answer" }, { text: "again" }]);
    let p = chat();
    await ready(p);
    p.send("first prompt");
    await p.waitFor("Esc cancels");
    p.type("second prompt");
    p.keys("Tab"); // Enter would steer the running turn (chat-steer.test.ts)
    await p.waitFor("queued › second prompt");
    release();
    await p.waitFor("queued answer");
    expect(lastUser(1)).toBe("second prompt");
    p.keys("C-c");
    p.keys("C-c");
    const end = await p.waitFor("[exit 0]", { all: true });
    const id = sessionId(end)!;

    const dir = join(f.ce.home, "chat-history");
    const files = require("node:fs").readdirSync(dir) as string[];
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);

    p = chat();
    await ready(p);
    p.keys("Up");
    await p.waitFor(/^second prompt/m);
    p.keys("Up");
    await p.waitFor(/^first prompt/m);

    // The session is listed by `reasonix sessions` and can be resumed.
    const list = await runCli(f.ce, ["sessions", "list", "--json"]);
    expect(list.code).toBe(0);
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain(id);
    await quit(p);
    p = chat(["chat", "--resume", id]);
    const s = await p.waitFor("queued answer");
    expect(s).toContain("› first prompt");
  });
});

describe.skipIf(skip)("/web: the browser UI on the chat's own session", () => {
  /** A chat that answered one prompt ("terminal answer"; none with `said` false), then `/web`: its session id and the printed URL. */
  async function chatWithWeb(said = true) {
    const p = chat(["chat"], { env: { REASONIX_NO_BROWSER: "1" } });
    await ready(p);
    if (said) {
      p.send("from the terminal");
      await p.waitFor("terminal answer");
    }
    const id = sessionId(p.all())!;
    p.type("/web");
    await p.waitFor("Open this session in the browser");
    p.keys("Enter");
    const s = await p.waitFor(/browser UI: http:\/\/127\.0\.0\.1:\d+\/sessions\/\S+#token=\S+/);
    const url = new URL(/browser UI: (\S+)/.exec(s)![1]!);
    /** An authorized POST from the browser's origin. */
    const post = (path: string, body: unknown) =>
      fetch(`${url.origin}${path}`, { method: "POST", headers: { authorization: `Bearer ${url.hash.replace("#token=", "")}`, "content-type": "application/json", origin: url.origin }, body: JSON.stringify(body) });
    /** The server's session list as the browser gets it. */
    const live = async () => ((await (await fetch(`${url.origin}/api/sessions`, { headers: { authorization: `Bearer ${url.hash.replace("#token=", "")}` } })).json()) as { sessions: { id: string; live: boolean }[] }).sessions;
    return { p, id, url, post, live };
  }

  /** The scripted steps, and a second provider entry "other" (model other-model) on the same scripted server. */
  async function setupWithOther(steps: Parameters<typeof setup>[0]) {
    await setup(steps, ['[[providers]]', 'name = "other"', 'kind = "openai"', `base_url = "${"URL"}"`, 'model = "other-model"', 'api_key_env = "SCRIPTED_KEY"'].join("\n"));
    const cfgPath = join(f.ce.home, "config.toml");
    writeFileSync(cfgPath, readFileSync(cfgPath, "utf8").replace('"URL"', `"${f.llm.url}"`));
  }

  test("serves this session with token auth on loopback; a prompt from the web shows up in the terminal", async () => {
    await setup([{ text: "terminal answer" }, { text: "answer to the web prompt" }]);
    const { p, id, url } = await chatWithWeb();
    expect(url.pathname).toBe(`/sessions/${id}`);
    const token = url.hash.replace("#token=", "");
    const origin = url.origin;
    // No token, no access.
    expect((await fetch(`${origin}/api/sessions`)).status).toBe(401);
    const auth = { authorization: `Bearer ${token}` };
    const list = (await (await fetch(`${origin}/api/sessions`, { headers: auth })).json()) as { sessions: { id: string; live: boolean }[] };
    expect(list.sessions.find((x) => x.id === id)).toMatchObject({ id, live: true });
    const r = await fetch(`${origin}/api/sessions/${id}/prompt`, { method: "POST", headers: { ...auth, "content-type": "application/json", origin }, body: JSON.stringify({ prompt: "from the web" }) });
    expect(r.status).toBe(202);
    const after = await p.waitFor("answer to the web prompt");
    expect(after).toContain("› from the web");
    expect(after).toContain("sent from the browser UI");
    expect(lastUser(1)).toBe("from the web");
    // Same conversation: the web prompt came after the terminal's.
    expect(f.llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["from the terminal", "from the web"]);
  });

  test("a model switch from the web applies to the chat's next turn; fork and rename work on the chat's session", async () => {
    await setupWithOther([{ text: "terminal answer" }, { text: "answer from other" }]);
    const { p, id, post } = await chatWithWeb();
    expect((await post(`/api/sessions/${id}/model`, { name: "other" })).status).toBe(200);
    p.send("after the switch");
    await p.waitFor("answer from other");
    expect(f.llm.chatRequests()[1]!.body.model).toBe("other-model");
    expect(lastUser(1)).toBe("after the switch");
    const forked = await post(`/api/sessions/${id}/fork`, {});
    expect(forked.status).toBe(201);
    const renamed = await post(`/api/sessions/${id}/title`, { title: "named from the web" });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ title: "named from the web" });
  });

  test("/web before anything is said, and after the chat's /new: the browser serves the chat's session under its new id (fork and rename work before its first prompt)", async () => {
    await setup([{ text: "answer in the new session" }]);
    const { p, id, post, live } = await chatWithWeb(false);
    expect((await live()).find((x) => x.id === id)).toMatchObject({ live: true });
    p.type("/new");
    await p.waitFor("Start a new conversation");
    p.keys("Enter");
    const s = await p.waitFor((x) => (x.match(/session \d{8}-\d{6}-[0-9a-f]{6} ·/g) ?? []).length >= 2, { all: true });
    const next = [...s.matchAll(/session (\d{8}-\d{6}-[0-9a-f]{6}) ·/g)].map((m) => m[1]!).find((x) => x !== id)!;
    expect((await live()).find((x) => x.id === next)).toMatchObject({ live: true });
    // Before a word is said in it: fork and rename answer as in plain serve.
    const forked = await post(`/api/sessions/${next}/fork`, {});
    expect(forked.status).toBe(201);
    expect(((await forked.json()) as { from: string }).from).toBe(next);
    expect((await post(`/api/sessions/${next}/title`, { title: "named before a word" })).status).toBe(200);
    expect((await post(`/api/sessions/${next}/prompt`, { prompt: "from the web" })).status).toBe(202);
    const after = await p.waitFor("answer in the new session");
    expect(after).toContain("› from the web");
    expect(f.llm.chatRequests()[0]!.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["from the web"]);
  });

  test("one host: mode, effort and model set in the browser are the chat's (and the chat's are the browser's)", async () => {
    await setupWithOther([
      { text: "terminal answer" },
      { toolCalls: [{ name: "write_file", arguments: { path: "web-planted.txt", content: "x\n" } }] },
      { text: "web answer on scripted" },
    ]);
    const { p, id, post } = await chatWithWeb();
    expect((await post(`/api/sessions/${id}/mode`, { mode: "read-only" })).status).toBe(200);
    expect((await post(`/api/sessions/${id}/effort`, { effort: "low" })).status).toBe(200);
    expect((await post(`/api/sessions/${id}/model`, { name: "other" })).status).toBe(200);

    // The chat's next turn runs on the browser's choices: other model, effort low, read-only (the write is refused, nothing asked).
    p.send("write web-planted.txt");
    await p.waitFor("a permission was refused");
    expect(f.llm.chatRequests()[1]!.body.model).toBe("other-model");
    expect(f.llm.chatRequests()[1]!.body.reasoning_effort).toBe("low");
    expect(existsSync(join(f.ce.workspace, "web-planted.txt"))).toBe(false);
    expect(p.all()).not.toContain("Allow write_file");
    // …and the chat shows the browser's mode as its own (drawn at the change itself, before this turn).
    expect(p.screen()).toContain("other · mode read-only");

    // The other way: the chat's mode and model are what the browser gets.
    p.keys("BTab");
    await p.waitFor("mode ask");
    const resumed = (await (await post(`/api/sessions/${id}/resume`, {})).json()) as { mode?: string; model: string };
    expect(resumed).toMatchObject({ mode: "ask", model: "other" });
    p.send("/model scripted");
    await p.waitFor("model scripted from here on");
    expect((await post(`/api/sessions/${id}/prompt`, { prompt: "from the web" })).status).toBe(202);
    await p.waitFor("web answer on scripted");
    const sent = f.llm.chatRequests()[2]!.body;
    expect(sent.model).toBe("scripted-model");
    expect(sent.reasoning_effort).toBe("low");
    expect(sent.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["from the terminal", "write web-planted.txt", "from the web"]);

    // Fork and rename answer as in plain serve.
    expect((await post(`/api/sessions/${id}/fork`, {})).status).toBe(201);
    const renamed = await post(`/api/sessions/${id}/title`, { title: "named from the web" });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ title: "named from the web" });
  });

  test("the chat still exits after /web, full-screen and in line mode: its browser server stops with it", async () => {
    await setup([{ text: "terminal answer" }]);
    const { p } = await chatWithWeb();
    await quit(p);
    const line = chat(["chat", "--line-mode"], { env: { REASONIX_NO_BROWSER: "1" } });
    await line.waitFor("line mode");
    line.send("/web");
    await line.waitFor(/browser UI: http:\/\/127\.0\.0\.1:\d+\//);
    await quit(line);
  });

  test.skipIf(!haveChromium)("a session put in yolo with Ctrl-Y shows yolo, by name, in the browser's mode control (Chromium)", async () => {
    await setup([{ text: "terminal answer" }]);
    const { p, url } = await chatWithWeb();
    p.keys("C-y");
    await p.waitFor("mode yolo");
    const { chromium } = await import("playwright-core");
    const profile = tempDir("udd");
    const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(url.href);
      // The session's mode arrives with the session: the control holds a value from then on.
      await page.waitForFunction(() => (document.querySelector("#mode") as HTMLSelectElement | null)?.value);
      const mode = page.locator("#mode");
      expect(await mode.inputValue()).toBe("yolo");
      expect(await mode.locator("option:checked").textContent()).toContain("YOLO");
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
      cleanup(profile);
    }
    await quit(p);
  });

  test("a mode and a model set in the browser show in the chat's status line at once, with no key pressed", async () => {
    await setupWithOther([{ text: "terminal answer" }]);
    const { p, id, post } = await chatWithWeb();
    // Nothing else redraws the idle chat: only the host's change can bring these onto the screen.
    expect(p.screen()).not.toContain("mode read-only");
    expect((await post(`/api/sessions/${id}/mode`, { mode: "read-only" })).status).toBe(200);
    await p.waitForCurrent("mode read-only");
    expect(p.screen()).not.toContain("other · mode");
    expect((await post(`/api/sessions/${id}/model`, { name: "other" })).status).toBe(200);
    await p.waitForCurrent("other · mode read-only");
  });
});

describe.skipIf(skip)("reasonix chat: persisted rules, reasoning, Esc Esc", () => {
  test("'always in this project' stores the shown rule in the project config (reasonix.toml)", async () => {
    await setup([
      { toolCalls: [{ name: "write_file", arguments: { path: "p.txt", content: "1\n" } }] },
      { text: "first written" },
    ]);
    const p = chat();
    await ready(p);
    p.send("write p.txt");
    await p.waitFor("the rule: Edit(p.txt)");
    await answer(p, 4);
    const s = await p.waitFor("first written");
    expect(s).toContain("allowed always in this project");
    expect(s).toContain(`added Edit(p.txt) to ${join(f.ce.workspace, "reasonix.toml")}`);
    expect(readFileSync(join(f.ce.workspace, "reasonix.toml"), "utf8")).toContain("Edit(p.txt)");
  });

  test("reasoning streams dimmed, collapses to one line, Ctrl-O prints it; Esc Esc opens the rewind picker", async () => {
    await setup([{ reasoning: "First I think about it.\nThen I decide.", text: "The answer." }]);
    const p = chat();
    await ready(p);
    p.send("think");
    let s = await p.waitFor("The answer.");
    expect(s).toMatch(/∴ First I think about it\. … +\(\d+ chars · Ctrl-O shows it\)/);
    expect(s).not.toContain("Then I decide.");
    p.keys("C-o");
    s = await p.waitFor("Then I decide.");
    expect(s).toContain("── reasoning");
    // Both presses at once: the program may read them as one ESC ESC or as two; either is a double press.
    p.keys("Escape", "Escape");
    await p.waitFor("Rewind to before which prompt?");
    p.keys("Escape");
    await p.waitFor((x) => !x.includes("Rewind to before which prompt?"));
  });

  test("streamed reasoning then text: the reasoning line is printed once, not again when the answer ends", async () => {
    await setup([{ reasoning: "Weigh the options.\nPick one.", text: "Chosen.\n\nDone here.", chunkSize: 4 }]);
    const p = chat();
    await ready(p);
    p.send("decide");
    // The turn is over (no busy status): the final `assistant` event has been shown.
    await p.waitFor((s) => s.includes("Done here.") && !s.includes("Esc cancels"));
    const all = p.all();
    expect(all.match(/∴ Weigh the options\./g) ?? []).toHaveLength(1);
    expect(all.match(/^Chosen\.$/gm) ?? []).toHaveLength(1);
  });
});

describe.skipIf(skip)("/trust", () => {
  test("shows the workspace's trust: a new reasonix.toml is not trusted until `reasonix trust`", async () => {
    await setup([]);
    writeFileSync(join(f.ce.workspace, "reasonix.toml"), '[permissions]\nallow = ["Bash(ls)"]\n');
    const p = chat();
    // The chat first asks once whether to trust the file; keep it untrusted.
    await p.waitFor("Trust these files?");
    p.keys("n", "Enter");
    await ready(p);
    p.type("/trust");
    await p.waitFor("Workspace trust status");
    p.keys("Enter");
    const s = await p.waitFor("not trusted");
    expect(s).toContain("reasonix.toml  new");
    expect(s).toContain("reasonix trust");
  });
});

describe.skipIf(skip)("continuing sessions", () => {
  test("--resume without an id opens a picker; -c continues the latest session", async () => {
    await setup([{ text: "first session answer" }, { text: "continued answer" }]);
    let p = chat();
    await ready(p);
    p.send("remember the number 7");
    await p.waitFor("first session answer");
    await quit(p);

    p = chat(["chat", "--resume"]);
    await p.waitFor("Resume which session?");
    await p.waitFor("remember the number 7");
    p.keys("Enter");
    let s = await p.waitFor("› remember the number 7");
    expect(s).toContain("first session answer");
    await quit(p);

    p = chat(["chat", "-c"]);
    s = await p.waitFor("› remember the number 7");
    p.send("and now?");
    await p.waitFor("continued answer");
    expect(f.llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["remember the number 7", "and now?"]);
  });
});

describe.skipIf(skip)("custom commands and skills in the / menu", () => {
  test("a user command is listed, filtered and expanded by the engine; an unknown /word is not sent", async () => {
    await setup([{ text: "greeted" }]);
    mkdirSync(join(f.ce.home, "commands"), { recursive: true });
    writeFileSync(join(f.ce.home, "commands", "greet.md"), "---\ndescription: Greet someone warmly\n---\nSay hello to $ARGUMENTS in one line.\n");
    const p = chat();
    await ready(p);
    p.type("/gre");
    await p.waitFor("Greet someone warmly");
    p.keys("C-u");
    await closeMenu(p);
    p.send("/hlep");
    await p.waitFor("unknown command /hlep");
    // With a space there is no menu (our commands complete no arguments): Enter sends the line.
    p.send("/greet the team");
    await p.waitFor("greeted");
    expect(f.llm.chatRequests()).toHaveLength(1);
    expect(lastUser(0)).toContain("Say hello to the team in one line.");
    p.type("/help");
    await p.waitFor("Commands and keys");
    p.keys("Enter");
    await p.waitFor("Custom commands and skills");
    expect(p.all()).toContain("/greet");
  });
});

describe.skipIf(skip)("informational commands", () => {
  test("/cost, /context, /todo, /sessions, /mode and /clear (after its question)", async () => {
    await setup([{ toolCalls: [{ name: "todo_write", arguments: { todos: [{ content: "write the tests", status: "in_progress" }] } }] }, { text: "planned" }], 'context_window = 1000\nprices = { input = 1.0, output = 4.0, currency = "USD" }');
    const p = chat();
    await ready(p);
    p.send("plan");
    await p.waitFor("planned");
    await p.waitFor(/ctx [1-9]\d*%/); // a percentage (the entry sets context_window), no longer 0%
    const run = async (cmd: string, expectText: string | RegExp | ((s: string) => boolean)) => {
      p.type(cmd);
      // A bare `/word` opens the menu (Enter there would complete instead of send); with arguments there is none.
      if (!cmd.includes(" ")) await closeMenu(p);
      p.keys("Enter");
      return p.waitFor(expectText);
    };
    await run("/cost", /tokens: 200 in \(0% from cache\), 40 out/);
    await run("/context", /context: \d+ of 1\.0k tokens \(\d+%\)/);
    await run("/todo", "[>] write the tests");
    await run("/sessions", /^\* \d{8}-\d{6}-[0-9a-f]{6}/m);
    await run("/mode plan", "permission mode plan");
    await p.waitFor("mode plan ·");
    const before = sessionId(p.all());
    // /clear asks before the context goes (Enter: the first choice, yes).
    await run("/clear", "Clear the context and start a new conversation?");
    p.keys("Enter");
    await p.waitFor((s: string) => !s.includes("planned") && s.includes("session "));
    expect(sessionId(p.screen())).not.toBe(before);
  });
});
