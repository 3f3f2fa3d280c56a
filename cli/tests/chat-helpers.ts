// Drives `reasonix chat` in a real tmux pane: start it with a throw-away
// $REASONIX_HOME against the scripted model, type with send-keys, read the
// screen with capture-pane. Every wait polls with a deadline and waits for
// what the last keys caused (core/testing/fresh-wait.ts), never for text that
// was already on screen before them.
import { afterEach, beforeAll, setDefaultTimeout } from "bun:test";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { causedSince, describeWant, occurrences, pollFor, type Want } from "../../core/testing/fresh-wait.ts";
import { startScriptedOpenAI, type ScriptStep, type ScriptedServer, type ScriptedOptions } from "../../core/testing/scripted-llm.ts";
import { mainTs, makeCliEnv, type CliEnv } from "./run-helpers.ts";

export const hasTmux = (): boolean => spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;

let counter = 0;

export interface Pane {
  name: string;
  socket: string;
  /** Visible screen as text. */
  screen(): string;
  /** Screen plus scrollback. */
  all(): string;
  /** With escape sequences (capture-pane -e). */
  raw(): string;
  keys(...keys: string[]): void;
  /** Type text literally (no key names). */
  type(text: string): void;
  /** Type text literally, then press Enter. */
  send(text: string): void;
  resize(cols: number, rows: number): void;
  /**
   * Wait for what the keys sent since the previous wait caused: text must
   * occur (screen + scrollback) more often than just before the first of those
   * keys; a condition (checked on the screen, or screen + scrollback with
   * `all`) must have been false then — one that already held throws at once.
   * Consecutive waits share that moment. Returns the screen (or all with `all`).
   * With `written` (needs startChat's `record`), the test runs on what the
   * program wrote since that moment, escape sequences removed: the way to see
   * a redraw of text that stays on screen (a resize).
   */
  waitFor(test: Want, opts?: { timeoutMs?: number; all?: boolean; written?: boolean }): Promise<string>;
  /**
   * Wait until the screen shows `test` now, whenever it appeared. Only for a
   * state the program reaches by itself and keeps while it lasts (an armed
   * approval's hint), never for the effect of keys: that is waitFor.
   */
  waitForCurrent(test: Want, opts?: { timeoutMs?: number }): Promise<string>;
  /** True once the program in the pane has exited. */
  exited(): boolean;
  kill(): void;
}

const tmux = (socket: string, args: string[]) => spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });

export function startChat(ce: CliEnv, args: string[] = ["chat"], opts: { env?: Record<string, string>; cols?: number; rows?: number; bin?: string[]; cwd?: string; record?: string } = {}): Pane {
  const socket = `rx-chat-${process.pid}-${++counter}`;
  const name = "chat";
  // run-helpers sets NO_COLOR for `run`; the chat gets colour unless a test asks otherwise.
  const env: Record<string, string> = { ...ce.env, TERM: "xterm-256color" };
  delete env.NO_COLOR;
  Object.assign(env, opts.env);
  const envArgs = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  // tmux sets TERM in the pane itself: pass ours through env(1). The tmux
  // server inherits this process's environment and `-e` only adds to it, so a
  // variable the test removed (CI, NO_COLOR, DO_NOT_TRACK…) is unset here.
  const unset = Object.keys(process.env).filter((k) => !(k in env)).flatMap((k) => ["-u", k]);
  // PATH likewise: the shell tmux starts resets it (a test's fake tools on PATH would be lost).
  const cmd = ["env", ...unset, `TERM=${env.TERM}`, ...(opts.env?.PATH ? [`PATH=${env.PATH}`] : []), ...(opts.bin ?? [process.execPath, mainTs]), ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  // remain-on-exit keeps the pane (and its last screen) after the program ends.
  // Ctrl-C in line mode is a SIGINT to the whole foreground group: the shell
  // around the program must outlive it (a trap, unlike ignoring, is reset for the program).
  // With `record`, every byte the program writes is also copied to that file
  // (pipe-pane is attached before the program starts).
  const wait = opts.record ? "sleep 0.3; " : "";
  const r = tmux(socket, ["-f", "/dev/null", "new-session", "-d", "-s", name, "-x", String(opts.cols ?? 120), "-y", String(opts.rows ?? 40), "-c", opts.cwd ?? ce.workspace, ...envArgs, `trap true INT; ${wait}${cmd}; echo "[exit $?]"; sleep 600`]);
  if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  if (opts.record) tmux(socket, ["pipe-pane", "-o", "-t", name, `cat > '${opts.record}'`]);
  tmux(socket, ["set-option", "-t", name, "history-limit", "5000"]);
  const capture = (extra: string[]) => tmux(socket, ["capture-pane", "-p", "-t", name, ...extra]).stdout ?? "";
  // The screen just before the first action after a wait: what waits compare against.
  let before = { screen: "", all: "", written: 0 };
  let acted = false;
  const recorded = () => (opts.record && existsSync(opts.record) ? readFileSync(opts.record, "latin1") : "");
  const act = () => {
    if (acted) return;
    acted = true;
    before = { screen: pane.screen(), all: pane.all(), written: recorded().length };
  };
  const pane: Pane = {
    name,
    socket,
    screen: () => capture([]),
    all: () => capture(["-S", "-"]),
    raw: () => capture(["-e", "-S", "-"]),
    keys: (...keys) => {
      act();
      tmux(socket, ["send-keys", "-t", name, ...keys]);
    },
    type: (text) => {
      act();
      tmux(socket, ["send-keys", "-t", name, "-l", text]);
    },
    send: (text) => {
      pane.type(text);
      pane.keys("Enter");
    },
    resize: (cols, rows) => {
      act();
      tmux(socket, ["resize-window", "-t", name, "-x", String(cols), "-y", String(rows)]);
    },
    waitFor: async (t, o = {}) => {
      acted = false;
      if (o.written) {
        if (!opts.record) throw new Error("waitFor({ written }) needs startChat's `record` option");
        const ok = typeof t === "function" ? t : (x: string) => occurrences(x, t) > 0;
        const read = () => Buffer.from(recorded().slice(before.written), "latin1").toString("utf8").replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b\[[0-9;?<=>]*[ -\/]*[@-~]|\x1b./g, "");
        return pollFor(`${describeWant(t)} written after the last keys`, read, ok, { timeoutMs: o.timeoutMs });
      }
      const caused = causedSince(t, { counted: before.all, checked: o.all ? before.all : before.screen });
      const read = () => {
        const all = pane.all();
        return { all, checked: o.all ? all : pane.screen() };
      };
      const got = await pollFor(`${describeWant(t)} (caused by the last keys)`, read, (v) => caused.counted(v.all) && caused.checked(v.checked), { timeoutMs: o.timeoutMs, show: (v) => v.checked });
      return got.checked;
    },
    waitForCurrent: (t, o = {}) => {
      acted = false;
      const ok = typeof t === "function" ? t : (x: string) => occurrences(x, t) > 0;
      return pollFor(`${describeWant(t)} on screen`, () => pane.screen(), ok, { timeoutMs: o.timeoutMs });
    },
    exited: () => /\[exit \d+\]/.test(pane.all()),
    kill: () => void tmux(socket, ["kill-server"]),
  };
  return pane;
}

/** The editor is up: its two border lines and the status line are on screen. */
export const ready = (p: Pane) => p.waitFor((s) => (s.match(/^─{20,}/gm) ?? []).length >= 2 && s.includes("mode "));

/** The editor's completion menu is open: an item marked "→ " below the composer's last border line. */
export function menuOpen(screen: string): boolean {
  const lines = screen.split("\n");
  let border = -1;
  lines.forEach((l, i) => {
    if (/^─{20,}/.test(l)) border = i;
  });
  return border >= 0 && lines.slice(border + 1).some((l) => l.startsWith("→ "));
}

/**
 * Close the completion menu the last keys opened: wait until it is on screen,
 * press Escape, wait until it is gone. ESC followed at once by a key reads as
 * Alt+key (as in every terminal); once the menu has closed, the program has
 * read the Escape alone, so the next key cannot join it. Only for text that
 * opens a menu (a `/word` without a space).
 */
export async function closeMenu(p: Pane): Promise<void> {
  await p.waitForCurrent(menuOpen);
  p.keys("Escape");
  await p.waitFor((s) => !menuOpen(s));
}

/** Leave the chat the way a person does and wait until it has exited (it holds the session's lock until then). */
export async function quit(p: Pane): Promise<void> {
  if (!p.all().includes("(line mode)")) {
    // Both presses at once: pressed after seeing the hint, the second could land outside
    // the 1.5 s double-press window on a loaded machine (soaks saw the chat stay open).
    p.keys("C-c", "C-c");
    await p.waitFor("[exit 0]", { all: true });
    return;
  }
  // Line mode: Ctrl-C is a SIGINT, and two signals sent at once arrive as one (signals
  // do not queue). So press, wait for what the press caused (the hint, or the exit), and
  // press again; a press that came after the 1.5 s window shows the hint again. Bounded.
  const hint = "press Ctrl-C again to exit";
  for (let press = 0; press < 8; press++) {
    const hints = occurrences(p.all(), hint);
    p.keys("C-c");
    const all = await p.waitFor((s) => /\[exit \d+\]/.test(s) || occurrences(s, hint) > hints, { all: true });
    if (/\[exit \d+\]/.test(all)) {
      if (!all.includes("[exit 0]")) throw new Error(`the chat exited with an error:\n${all}`);
      return;
    }
  }
  throw new Error(`the chat did not exit after 8 presses of Ctrl-C:\n${p.all()}`);
}

export interface ChatFixture {
  /** The scripted model of the current test. */
  readonly llm: ScriptedServer;
  /** Its throw-away $REASONIX_HOME and workspace. */
  readonly ce: CliEnv;
  /** `llm`: the scripted server's options (e.g. the models its /v1/models lists). */
  setup(steps: ScriptStep[], extraToml?: string, llm?: ScriptedOptions): Promise<void>;
  chat(args?: string[], opts?: Parameters<typeof startChat>[2]): Pane;
}

/** Per-test scripted model, home and tmux panes, all cleaned up after each test. */
export function chatFixture(): ChatFixture {
  // A chat test starts the program up to three times and makes a dozen waits of up to 30 s
  // each: 60 s for the whole test was a bet on an idle machine (soaks under load ran out).
  setDefaultTimeout(180_000);
  let llm: ScriptedServer | undefined;
  let ce: CliEnv | undefined;
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    get llm() {
      return llm!;
    },
    get ce() {
      return ce!;
    },
    async setup(steps, extraToml, llmOpts) {
      const server = await startScriptedOpenAI(steps, llmOpts);
      const env = makeCliEnv(server.url, { extraToml });
      // The one-time usage-counters question is a dozen rows in the live region of a release
      // binary unless CI is set: the same screen with and without CI (telemetry tests unset it).
      env.env.REASONIX_TELEMETRY = "0";
      llm = server;
      ce = env;
      cleanups.push(() => server.close(), () => env.cleanup());
    },
    chat(args, opts) {
      const p = startChat(ce!, args, opts);
      cleanups.push(() => p.kill());
      return p;
    },
  };
}

/** The pending approval takes answer keys: its own hint says so (drawn only once it is armed and the input is empty). */
export const approvalArmed = (p: Pane) => p.waitForCurrent("↑↓ then Enter to answer");

/** Answer the pending approval with choice N (1 once, 2 session, 3 always in the user's config, 4 always in the project, 5 deny) once it takes keys. */
export async function answer(p: Pane, n: 1 | 2 | 3 | 4 | 5): Promise<void> {
  await approvalArmed(p);
  p.type(String(n));
}

/**
 * Suites that drive the compiled binary in tmux: `skip` (tmux missing, said
 * once as SKIPPED), and the binary, built once per test process before the
 * suite's tests (read it inside a test).
 */
export function compiledChat(what: string): { skip: boolean; binary(): string } {
  const skip = !hasTmux();
  if (skip) console.warn(`SKIPPED ${what}: tmux is not installed (apt-get install tmux)`);
  let dist: BuiltDist | undefined;
  beforeAll(async () => {
    if (!skip) dist = await builtDist();
  }, BUILD_HOOK_MS);
  return { skip, binary: () => dist!.binary };
}
