// Drives `reasonix chat` in a real tmux pane: start it with a throw-away
// $REASONIX_HOME against the scripted model, type with send-keys, read the
// screen with capture-pane. Every wait polls with a deadline.
import { afterEach } from "bun:test";
import { spawnSync } from "node:child_process";
import { startScriptedOpenAI, type ScriptStep, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
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
  waitFor(test: string | RegExp | ((screen: string) => boolean), opts?: { timeoutMs?: number; all?: boolean }): Promise<string>;
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
  // tmux sets TERM in the pane itself: pass ours through env(1).
  const cmd = ["env", `TERM=${env.TERM}`, ...(opts.bin ?? [process.execPath, mainTs]), ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
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
  const pane: Pane = {
    name,
    socket,
    screen: () => capture([]),
    all: () => capture(["-S", "-"]),
    raw: () => capture(["-e", "-S", "-"]),
    keys: (...keys) => void tmux(socket, ["send-keys", "-t", name, ...keys]),
    type: (text) => void tmux(socket, ["send-keys", "-t", name, "-l", text]),
    send: (text) => {
      pane.type(text);
      pane.keys("Enter");
    },
    resize: (cols, rows) => void tmux(socket, ["resize-window", "-t", name, "-x", String(cols), "-y", String(rows)]),
    waitFor: async (t, o = {}) => {
      // Generous: the CI machine has 2 cores shared by every suite.
      const deadline = Date.now() + (o.timeoutMs ?? 30_000);
      const ok = typeof t === "string" ? (s: string) => s.includes(t) : t instanceof RegExp ? (s: string) => t.test(s) : t;
      let s = "";
      while (Date.now() < deadline) {
        s = o.all ? pane.all() : pane.screen();
        if (ok(s)) return s;
        await Bun.sleep(50);
      }
      throw new Error(`timed out waiting for ${String(t)}; screen was:\n${s}`);
    },
    exited: () => /\[exit \d+\]/.test(pane.all()),
    kill: () => void tmux(socket, ["kill-server"]),
  };
  return pane;
}

/** The editor is up: its two border lines and the status line are on screen. */
export const ready = (p: Pane) => p.waitFor((s) => (s.match(/^─{20,}/gm) ?? []).length >= 2 && s.includes("mode "));

/** Close the open menu (Escape). ESC followed at once by a key reads as Alt+key (as in every terminal): pause like a person. */
export async function closeMenu(p: Pane): Promise<void> {
  p.keys("Escape");
  await Bun.sleep(150);
}

/** Leave the chat the way a person does and wait until it has exited (it holds the session's lock until then). */
export async function quit(p: Pane): Promise<void> {
  p.keys("C-c");
  await p.waitFor("press Ctrl-C again");
  p.keys("C-c");
  await p.waitFor("[exit 0]", { all: true });
}

export interface ChatFixture {
  /** The scripted model of the current test. */
  readonly llm: ScriptedServer;
  /** Its throw-away $REASONIX_HOME and workspace. */
  readonly ce: CliEnv;
  setup(steps: ScriptStep[], extraToml?: string): Promise<void>;
  chat(args?: string[], opts?: Parameters<typeof startChat>[2]): Pane;
}

/** Per-test scripted model, home and tmux panes, all cleaned up after each test. */
export function chatFixture(): ChatFixture {
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
    async setup(steps, extraToml) {
      const server = await startScriptedOpenAI(steps);
      const env = makeCliEnv(server.url, { extraToml });
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
export const approvalArmed = (p: Pane) => p.waitFor("↑↓ then Enter to answer");

/** Answer the pending approval with choice N (1 once, 2 session, 3 always in the user's config, 4 always in the project, 5 deny) once it takes keys. */
export async function answer(p: Pane, n: 1 | 2 | 3 | 4 | 5): Promise<void> {
  await approvalArmed(p);
  p.type(String(n));
}
