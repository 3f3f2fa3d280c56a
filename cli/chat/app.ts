// The full-screen terminal chat: pi-tui's editor, keys and markdown on our
// own scrollback-friendly renderer (live.ts).
import { Editor, KeybindingsManager, matchesKey, ProcessTerminal, setKeybindings, TUI_KEYBINDINGS, truncateToWidth, type TUI } from "@mariozechner/pi-tui";
import { errorMessage } from "../../core/errors.ts";
import type { ApprovalDecision, QuestionAnswer, SubmitOptions } from "../../core/engine/types.ts";
import { type Paint } from "./cards.ts";
import { CardDesk } from "./card-desk.ts";
import { ChatCompletions } from "./complete.ts";
import { LiveRenderer, terminalReflows } from "./live.ts";
import { Picker } from "./picker.ts";
import { InputHistory } from "./history.ts";
import { BusyClock } from "./busy-clock.ts";
import type { ChatSetup } from "./setup.ts";
import { routeSlash, runSlash, slashCommands, type PickItem, type SlashContext } from "./slash.ts";
import { statusFields, watchJobs, type ChatState } from "./session.ts";
import { SteerLines } from "./steer.ts";
import { queuedBelow, queueOnTab } from "./queue-lines.ts";
import { noteFromChat } from "./note.ts";
import { PastedImages } from "./pasted-images.ts";
import { shellFromChat } from "./shell-line.ts";
import { applyTheme, c, editorTheme } from "./theme.ts";
import { Transcript } from "./transcript.ts";
import { Views } from "./views.ts";
import { isGoalPrompt } from "../../core/goal/prompts.ts";
import { startupMark } from "../startup-trace.ts";
import { holdTerminal } from "../terminal-restore.ts";
import type { ChatTelemetry } from "./consent.ts";
import { commandDescription, resolveLanguage, setLanguage, t } from "../../core/protocol/i18n/index.ts";

const paint: Paint = { dim: c.dim, bold: c.bold, red: c.red, green: c.green, yellow: c.yellow, cyan: c.cyan };
const DOUBLE_MS = 1500;

/** What the first frame needs before the engine is loaded. */
export interface EarlyInfo {
  workspace: string;
  home: string;
}

/**
 * The first frame is drawn before the engine loads (config, providers, the
 * session file): `load` runs after it, and input typed meanwhile is kept.
 */
export async function runChatApp(
  load: () => Promise<ChatSetup>,
  early: EarlyInfo,
  first?: string,
  makeWeb?: (setup: ChatSetup) => SlashContext["startWeb"],
): Promise<number> {
  let setup: ChatSetup | undefined;
  setLanguage(resolveLanguage(undefined, process.env)); // until setupChat reads the config's `language`
  // Set once `load` resolves; nothing reads it before (every use is behind `ready`).
  let st = undefined as unknown as ChatState;
  const history = new InputHistory(early.home, early.workspace);
  const term = new ProcessTerminal();
  let renderer!: LiveRenderer;
  const width = () => Math.max(10, term.columns - 1);
  const transcript = new Transcript(paint, (lines) => renderer.commit(lines), width);
  const steering = new SteerLines(paint);

  // Alt+Enter inserts a new line too (Shift+Enter needs a terminal that reports it).
  setKeybindings(new KeybindingsManager(TUI_KEYBINDINGS, { "tui.input.newLine": ["shift+enter", "alt+enter"] }));
  // The editor only needs requestRender and the terminal's height from its host.
  const host = { requestRender: () => renderer.request(), terminal: term } as unknown as TUI;
  const editor = new Editor(host, editorTheme, { paddingX: 0, autocompleteMaxVisible: 8 });
  editor.setAutocompleteProvider(
    new ChatCompletions(
      slashCommands.map((s) => ({ name: s.name, description: commandDescription(s.name, s.description), argumentHint: s.args })),
      early.workspace,
    ),
  );
  for (const h of history.entries()) editor.addToHistory(h);

  let picker: Picker<unknown> | undefined;
  let tele: ChatTelemetry | undefined;
  /** Messages typed before the engine was ready. */
  const earlyQueue: string[] = [];
  let hint = "";
  let hintTimer: ReturnType<typeof setTimeout> | undefined;
  let lastCtrlC = 0;
  let lastEsc = 0;
  const clock = new BusyClock(() => renderer.request());
  /** Ctrl+V (Alt+V on Windows) and /paste-image: the clipboard's picture as an `[image #N]` token. */
  const pasted = new PastedImages();
  const pasteImage = () => pasted.pasteInto((t) => editor.insertTextAtCursor(t), (m) => transcript.info([c.yellow(m)])).then(() => renderer.request());
  let finish!: (code: number) => void;
  const done = new Promise<number>((r) => (finish = r));

  const flash = (text: string) => {
    hint = text;
    clearTimeout(hintTimer);
    hintTimer = setTimeout(() => {
      hint = "";
      renderer.request();
    }, DOUBLE_MS);
    renderer.request();
  };

  const live = (w: number): string[] => {
    const out = transcript.live(w);
    const below: string[] = [];
    below.push(...steering.live(w));
    below.push(...queuedBelow(setup ? st.queue : earlyQueue, setup ? st.queuePaused : false, w));
    if (hint) below.push(c.yellow(hint));
    if (picker) below.push(...picker.render(w));
    else
      for (const l of editor.render(w)) {
        // pi-tui pads to the full width and colours each border cell: trim both.
        const t = l.replace(/ +$/, "");
        below.push(/^─+$/.test(t) ? c.gray(t) : t);
      }
    if (!setup) {
      out.push(...below, c.dim(t("chat.starting")));
      return out;
    }
    below.push(truncateToWidth(c.dim(statusFields(st, clock.label(st.session.busy)).join(" · ")), w, "…"));
    if (tele?.prompt) out.push(...tele.prompt.render(paint, editor.getText() === "", w));
    cards.place(out, w, term.rows, below.length, editor.getText() === "", renderer.holding);
    out.push(...below);
    return out;
  };
  const cards = new CardDesk(paint, transcript, () => renderer.request(), {
    approve: (id: string, d: ApprovalDecision) => st.session.approve(id, d),
    answer: (id: string, a: QuestionAnswer) => st.sessionHost!.answerQuestion(id, a),
    denied: () => {
      hint = t("chat.deniedHint");
      clearTimeout(hintTimer);
      renderer.request();
    },
  });
  const views = new Views(paint, transcript, width, () => term.rows, (lines) => transcript.info(lines), (draw) => renderer.overlay(draw));
  renderer = new LiveRenderer({ write: (s) => term.write(s), get columns() { return term.columns; }, get rows() { return term.rows; }, reflows: terminalReflows(process.env) }, live);

  const pick = <T,>(title: string, items: PickItem<T>[], what?: string): Promise<T | undefined> =>
    new Promise((resolve) => {
      picker = new Picker<T>(title, items, (v) => {
        picker = undefined;
        renderer.request();
        resolve(v);
      }, what) as Picker<unknown>;
      renderer.request();
    });

  const header = () =>
    transcript.info([
      `${c.bold("reasonix")} ${c.dim(`· ${st.model} · ${st.session.workspace}`)}`,
      c.dim(t("chat.header", { id: st.session.id })),
    ]);

  const replay = () => transcript.replay(st.session.history());

  const ctx: SlashContext = {
    get st() {
      return st;
    },
    paint,
    print: (lines) => transcript.info(lines),
    pick,
    clearScreen: () => renderer.clearScreen(),
    toggleVerbose: () => void views.toggleVerbose(),
    home: early.home,
    exit: () => void quit(),
    sessionChanged: (kind) => {
      transcript.restart(); // the transcript view shows this session only
      header();
      if (kind === "resumed") replay();
    },
    startWeb: undefined,
    pasteImage,
  };

  /** Prompts sent from here (echoed at once); others come from the browser UI (/web). */
  const sentHere: string[] = [];
  /** `opts`: a queued prompt's own pictures (kept with it on disk); else the pasted ones its tokens name. */
  const send = (text: string, opts?: SubmitOptions) => {
    if (process.env.REASONIX_TEST_CRASH) void import("../test-crash.ts").then(({ testCrash }) => testCrash("chat-ui")); // a crash while the chat is up (tests only)
    transcript.prompt(text);
    sentHere.push(text);
    clock.start();
    const host = st.sessionHost!;
    const turn = host.submit(text, opts ?? pasted.options(text));
    turn
      .catch((e) => transcript.info([`${c.red(t("chat.error"))} ${errorMessage(e)}`]))
      .finally(() => {
        // The next queued prompt (the host's queue, on disk), unless it has started already.
        if (host.busy || host.pumpQueue()) return;
        clock.stop();
        renderer.request();
      });
    renderer.request();
    return turn;
  };

  const submit = async (raw: string) => {
    const text = raw.trim();
    if (!text) return;
    hint = "";
    history.add(text);
    editor.addToHistory(text);
    if (!setup) {
      earlyQueue.push(text);
      renderer.request();
      return;
    }
    // `#note`: to the project's instruction file, not to the model.
    if (await noteFromChat(ctx, text)) return renderer.request();
    // `!command`: run in the shell (sandbox and rules as for the agent), output for the next message.
    if (await shellFromChat(st, text, paint, ctx.print, (on) => (on ? clock.start() : clock.stop()))) return renderer.request();
    const route = text.startsWith("/") ? routeSlash(ctx.commands, text) : "text";
    if (route === "local") {
      await runSlash(ctx, text).catch((e) => transcript.info([c.red(errorMessage(e))]));
      renderer.request();
      return;
    }
    if (route === "unknown") {
      transcript.info([c.yellow(t("chat.unknownCommand", { name: text.split(/\s/)[0]! }))]);
      renderer.request();
      return;
    }
    // A message with a picture is not a steer (those are text): it waits for the turn.
    if (st.session.busy && pasted.images(text).length) {
      const refused = st.enqueue(text, pasted.images(text));
      return refused ? void transcript.info([c.red(refused)]) : flash("queued: a message with a picture is sent after this turn");
    }
    if (st.session.busy) {
      // Enter while a turn runs steers it (Tab queues the text for after the turn instead).
      steering.send(st.sessionHost!, text);
      renderer.request();
      return;
    }
    send(text);
  };
  editor.onSubmit = (t) => void submit(t);

  const onKey = (data: string) => {
    if (picker) {
      picker.handleInput(data);
      renderer.request();
      return;
    }
    if (!setup) {
      // Still loading: typing works, Ctrl-C twice leaves.
      if (matchesKey(data, "ctrl+c")) {
        if (Date.now() - lastCtrlC < DOUBLE_MS) return void quit();
        lastCtrlC = Date.now();
        flash(t("chat.ctrlCAgain"));
        return;
      }
      editor.handleInput(data);
      renderer.request();
      return;
    }
    if (tele?.prompt?.key(data, editor.getText() === "", (d) => editor.handleInput(d))) return renderer.request();
    if (views.key(data, transcript.approvals.length > 0, editor.getText().includes("\n"))) return renderer.request();
    if (cards.key(data, width(), editor.getText() === "", (d) => editor.handleInput(d))) return renderer.request();
    if (matchesKey(data, "ctrl+c")) {
      const now = Date.now();
      if (now - lastCtrlC < DOUBLE_MS) return void quit();
      lastCtrlC = now;
      if (editor.getText()) editor.setText("");
      else if (st.session.busy) st.session.cancel();
      flash(t("chat.ctrlCAgain"));
      return;
    }
    // Two presses read at once (a busy machine, a slow link) arrive as one ESC ESC: still a double press.
    const escTwice = data === "\x1b\x1b";
    if ((matchesKey(data, "escape") || escTwice) && !editor.isShowingAutocomplete()) {
      if (st.session.busy) {
        // What is queued stays (on disk), paused: /queue resume sends it.
        if (st.queue.length) st.sessionHost?.queue.pause();
        st.session.cancel();
        return;
      }
      const now = Date.now();
      if (escTwice || now - lastEsc < 600) {
        lastEsc = 0;
        void runSlash(ctx, "/rewind");
      } else lastEsc = now;
      return;
    }
    if (matchesKey(data, "shift+tab")) {
      const m = st.cycleMode();
      flash(t("chat.modeChanged", { mode: m }));
      return;
    }
    if (matchesKey(data, "ctrl+y")) return flash(t("chat.modeChanged", { mode: st.toggleYolo() }));
    // Ctrl-L: a clean screen (the scrollback and the conversation stay; /clear is for the context).
    if (matchesKey(data, "ctrl+l")) return renderer.clearScreen();
    // Ctrl-D on an empty composer leaves (as in a shell); with text it deletes the character under the cursor.
    if (matchesKey(data, "ctrl+d") && editor.getText() === "") return void quit();
    if (matchesKey(data, process.platform === "win32" ? "alt+v" : "ctrl+v")) return void pasteImage();
    // Enter on the `/` menu completes the command and runs it at once.
    if (matchesKey(data, "enter") && editor.isShowingAutocomplete() && /^\/\S*$/.test(editor.getText())) {
      editor.handleInput(data);
      const text = editor.getText().trim();
      if (/^\/\S+$/.test(text)) {
        editor.setText("");
        void submit(text);
      }
      renderer.request();
      return;
    }
    if (queueOnTab(data, editor, st, (m) => transcript.info([c.red(m)]), (text) => (history.add(text), editor.addToHistory(text)), (text) => pasted.images(text))) return renderer.request();
    editor.handleInput(data);
    renderer.request();
  };

  let quitting = false;
  let jobsTimer: ReturnType<typeof setInterval> | undefined;
  const quit = async () => {
    if (quitting) return;
    quitting = true;
    clock.stop();
    clearInterval(jobsTimer);
    clearTimeout(hintTimer);
    if (setup) {
      if (st.sessionHost) st.sessionHost.queueRunner = undefined; // what is queued stays on disk
      if (st.session.busy) st.session.cancel();
      if (st.session.history().some((e) => e.type !== "session")) renderer.commit([c.dim(t("chat.resumeHint", { id: st.session.id }))]);
    }
    renderer.stop([]);
    await term.drainInput(200, 30).catch(() => {});
    giveBack();
    if (setup) {
      st.sessionHost?.queue.close();
      await st.leave(st.session);
      await st.close();
    }
    await tele?.session.finish();
    finish(0);
  };
  process.on("SIGTERM", () => void quit());
  process.on("SIGHUP", () => void quit());

  term.start(onKey, () => renderer.resized());
  const giveBack = holdTerminal(() => (renderer.stop([]), term.stop())); // also before an uncaught error is printed (output.ts)
  term.setTitle(`reasonix · ${early.workspace.split("/").pop()}`);
  renderer.frame();
  // Let the first frame reach the terminal before loading the engine blocks the event loop for a while.
  await new Promise<void>((r) => process.stdout.write("", () => r()));
  startupMark("first-frame");
  try {
    setup = await load();
  } catch (e) {
    // No model configured, a bad config file…: leave the terminal as it was, then report.
    giveBack();
    throw e;
  }
  if (quitting) {
    await setup.st.engine.close().catch(() => {});
    return done;
  }
  st = setup.st;
  // The saved colours (/theme), with REASONIX_THEME / REASONIX_THEME_STYLE for this run.
  const theme = (await import("../../core/config/theme.ts")).effectiveTheme(setup.home);
  applyTheme(theme);
  for (const problem of theme.problems) transcript.info([c.yellow(problem)]);
  jobsTimer = watchJobs(st, () => renderer.request());
  // A mode, effort or model chosen in the browser (/web shares this host) shows at once.
  st.sessionHost?.onChange(() => renderer.request());
  if (st.sessionHost) st.sessionHost.queueRunner = send; // queued prompts (on disk) go out like typed ones
  // Usage counters and the one-time question: loaded after the first frame, never before it.
  tele = (await import("./consent.ts")).chatTelemetry(st.opts.config, setup.home, () => renderer.request(), (l) => transcript.info([l]), paint, st.sessionHost);
  ctx.startWeb = makeWeb?.(setup);
  // The full catalog (custom commands, skills) for the menu and for routing.
  try {
    const { chatCommands, chatMenu } = await import("./catalog.ts");
    const reg = chatCommands(st.engine.workspace, setup.home, st.opts.config, st.engine.commandSources());
    ctx.commands = reg;
    editor.setAutocompleteProvider(new ChatCompletions(chatMenu(reg), st.engine.workspace));
  } catch (e) {
    transcript.info([c.yellow(`custom commands and skills are not available: ${errorMessage(e)}`)]);
  }
  await st.attach(st.session, (e) => {
    tele?.session.counters.observe(e);
    if (e.type === "turn_start") {
      const i = sentHere.indexOf(e.prompt);
      if (i >= 0) sentHere.splice(i, 1);
      else {
        transcript.prompt(e.prompt);
        if (!isGoalPrompt(e.prompt)) transcript.info([c.dim(t("chat.fromBrowser"))]);
        clock.start();
      }
    }
    if (e.type === "turn_end" && sentHere.length === 0 && !st.queue.length) setTimeout(() => !st.session.busy && clock.stop(), 0);
    transcript.event(e);
    const steered = steering.take(e);
    if (steered.length) transcript.info(steered.map((l) => truncateToWidth(l, width(), "…")));
    renderer.request();
  });
  header();
  if (st.session.history().length > 0) replay();
  for (const n of setup.notes) transcript.info([c.dim(n)]);
  renderer.request();
  startupMark("engine-ready");
  if (setup.pickResume) await runSlash(ctx, "/resume");
  if (first) earlyQueue.unshift(first);
  const waiting = earlyQueue.splice(0);
  for (const t of waiting) await submit(t);
  return done;
}
