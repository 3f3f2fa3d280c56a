// Planted git state, attacked through the compiled binary (issue 25, items
// 2-5): the scripted model plants repositories git would obey — nested
// deeper than any bounded scan, under node_modules, made of plain files or
// symlinks — and Reasonix is stopped in every way a process can end. Then the
// user's own git runs on the host, as the user would run it, and must execute
// nothing: the payload (core.fsmonitor) would create a marker file, and git
// itself is asked which fsmonitor it would run. Real git, real bwrap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { probeSandbox } from "../../core/sandbox/index.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { startScriptedOpenAI, type ScriptedServer, type ScriptStep } from "../../core/testing/scripted-llm.ts";
import { builtDist } from "../../scripts/lib/built-dist.ts";
import { hasTmux, ready, startChat } from "./chat-helpers.ts";
import { makeCliEnv } from "./run-helpers.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

const hasGit = spawnSync("git", ["--version"]).status === 0;
const sandbox = await probeSandbox();
const skip = !hasGit || process.platform !== "linux" || !sandbox.available;
if (skip) console.warn(`SKIPPED planted git state suite: ${hasGit ? `no working bwrap (${sandbox.cause ?? process.platform})` : "git is not installed"}`);

let binary: string;
const roots: string[] = [];
const servers: ScriptedServer[] = [];

beforeAll(async () => {
  if (skip) return;
  binary = (await builtDist()).binary;
}, BUILD_HOOK_MS);
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

interface Env {
  root: string;
  home: string;
  ws: string;
  userHome: string;
  marker: string;
  extraConfig: string;
  env: Record<string, string>;
}

function makeEnv(opts: { git?: boolean; extraConfig?: string } = {}): Env {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-gitplant-")));
  roots.push(root);
  const home = join(root, "reasonix-home");
  const ws = join(root, "ws");
  const userHome = join(root, "user");
  for (const d of [home, ws, userHome]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, ".env"), "MINE_KEY=sk-test\n", { mode: 0o600 });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, { REASONIX_HOME: home, NO_COLOR: "1", HOME: userHome, GIT_CONFIG_NOSYSTEM: "1" });
  const e = { root, home, ws, userHome, marker: join(root, "PWNED"), extraConfig: opts.extraConfig ?? "", env };
  writeConfig(e, "http://127.0.0.1:9/v1");
  if (opts.git !== false) {
    must(e, ws, "init", "-q");
    writeFileSync(join(ws, "a.txt"), "a\n");
    must(e, ws, "add", "a.txt");
    must(e, ws, "commit", "-qm", "a");
  }
  return e;
}

function writeConfig(e: Env, url: string): void {
  writeFileSync(
    join(e.home, "config.toml"),
    ['default_model = "mine"', "[[providers]]", 'name = "mine"', 'kind = "openai"', `base_url = "${url}"`, 'model = "m"', 'api_key_env = "MINE_KEY"', e.extraConfig, ""].join("\n"),
  );
}

/** git on the host as the user runs it (their own HOME, no system config). */
function git(e: Env, cwd: string, ...args: string[]) {
  const home = e.userHome;
  const r = spawnSync("git", ["-c", "user.email=t@example.invalid", "-c", "user.name=t", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1", LANG: "C" },
    encoding: "utf8",
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}
const must = (e: Env, cwd: string, ...args: string[]) => {
  const r = git(e, cwd, ...args);
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.out}`);
};

async function scripted(steps: ScriptStep[]): Promise<ScriptedServer> {
  const s = await startScriptedOpenAI(steps);
  servers.push(s);
  return s;
}

type Ending = "normal" | "SIGTERM" | "SIGHUP" | "SIGKILL";

/** `reasonix run --auto` with these steps; a signal once `<ws>/.planted` exists. */
async function run(e: Env, steps: ScriptStep[], ending: Ending = "normal", prompt = "work") {
  const llm = await scripted(steps);
  writeConfig(e, llm.url);
  const proc = Bun.spawn([binary, "run", "--auto", prompt], { cwd: e.ws, env: e.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  const planted = join(e.ws, ".planted");
  let poll: ReturnType<typeof setInterval> | undefined;
  if (ending !== "normal") {
    poll = setInterval(() => {
      if (!existsSync(planted)) return;
      clearInterval(poll);
      proc.kill(ending);
    }, 20);
  }
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (poll) clearInterval(poll);
  const tools = llm
    .chatRequests()
    .flatMap((r) => r.body.messages)
    .filter((m: any) => m.role === "tool")
    .map((m: any) => String(m.content))
    .join("\n---\n");
  return { code, stdout, stderr, tools };
}

const bash = (command: string): ScriptStep => ({ toolCalls: [{ name: "bash", arguments: { command } }] });
const write = (path: string, content: string): ScriptStep => ({ toolCalls: [{ name: "write_file", arguments: { path, content } }] });
const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
const payload = (marker: string, extra = "") => `[core]\n${extra}\tfsmonitor = "touch '${marker}'; false"\n`;
const ID = "-c user.email=a@b -c user.name=a";

/**
 * The user's next git commands, where the attack aimed: `git status` (the
 * marker must not appear) and git's own answer to "which fsmonitor would you
 * run here" (must not be the payload).
 */
function assertHostGitClean(e: Env, dirs: string[]): void {
  for (const d of dirs) {
    const dir = join(e.ws, d);
    if (!existsSync(dir)) continue;
    git(e, dir, "status");
    const fsm = git(e, dir, "config", "--get", "core.fsmonitor").stdout;
    expect({ dir: d, fsmonitor: fsm.includes(e.marker) }).toEqual({ dir: d, fsmonitor: false });
  }
  expect(existsSync(e.marker)).toBe(false);
}

interface Layout {
  name: string;
  git: boolean;
  /** Bash commands that plant it (run normally: as separate calls). */
  plant: (e: Env) => string[];
  /** Where the user then runs git (relative to the workspace). */
  victims: string[];
}

const layouts: Layout[] = [
  {
    name: "a nested repository deeper than the scan, staged as a gitlink in a later call",
    git: true,
    plant: (e) => [
      `mkdir -p a/b/c/d/e/f/g && git -C a/b/c/d/e/f/g init -q && printf %s ${q(payload(e.marker))} >> a/b/c/d/e/f/g/.git/config && git -C a/b/c/d/e/f/g ${ID} commit -q --allow-empty -m x && echo planted; sleep 1.5`,
      // A second call, later than the old check's second of slack.
      "git add a/b/c/d/e/f/g && echo staged",
    ],
    victims: [".", "a/b/c/d/e/f/g"],
  },
  {
    name: "a repository under node_modules, staged as a gitlink in a later call",
    git: true,
    plant: (e) => [
      `mkdir -p node_modules/x && git -C node_modules/x init -q && printf %s ${q(payload(e.marker))} >> node_modules/x/.git/config && git -C node_modules/x ${ID} commit -q --allow-empty -m x && echo planted; sleep 1.5`,
      "git add -f node_modules/x && echo staged",
    ],
    victims: [".", "node_modules/x"],
  },
  {
    name: "a repository made of plain files (HEAD, objects/, refs/, config)",
    git: true,
    plant: (e) => [
      `mkdir -p src/objects/info src/refs/heads && echo 'ref: refs/heads/main' > src/HEAD && touch src/objects/info/keep src/refs/heads/keep && printf %s ${q(payload(e.marker, "\tbare = false\n\tworktree = ..\n"))} > src/config && echo planted`,
    ],
    victims: [".", "src"],
  },
  {
    name: "a plain-file repository with symlinked objects and refs",
    git: true,
    plant: (e) => [
      `mkdir -p store/o store/r lib && ln -s ../store/o lib/objects && ln -s ../store/r lib/refs && echo 'ref: refs/heads/main' > lib/HEAD && printf %s ${q(payload(e.marker, "\tworktree = ..\n"))} > lib/config && echo planted`,
    ],
    victims: [".", "lib"],
  },
  {
    name: "a plain-file repository at the root of a workspace that is not a repository",
    git: false,
    plant: (e) => [`mkdir -p objects/info refs/heads && echo 'ref: refs/heads/main' > HEAD && touch objects/info/keep refs/heads/keep && printf %s ${q(payload(e.marker, "\tworktree = .\n"))} > config && echo planted`],
    victims: ["."],
  },
];

describe.skipIf(skip)("planted git state (compiled binary, real bwrap, host git the victim)", () => {
  test("control: each layout, planted by hand, is a repository the host's git reads the payload from", () => {
    for (const l of layouts) {
      const e = makeEnv({ git: l.git });
      for (const cmd of l.plant(e)) expect(spawnSync("bash", ["-c", cmd.replace(/; sleep [\d.]+$/, "")], { cwd: e.ws, env: { ...e.env, HOME: e.userHome } }).status).toBe(0);
      const read = l.victims.some((d) => git(e, join(e.ws, d), "config", "--get", "core.fsmonitor").stdout.includes(e.marker));
      if (l.name.includes("gitlink")) {
        git(e, e.ws, "status");
        expect(existsSync(e.marker)).toBe(true);
      }
      expect({ layout: l.name, read }).toEqual({ layout: l.name, read: true });
    }
  });

  // The corpus: every layout × every way the process can end.
  for (const l of layouts) {
    for (const ending of ["normal", "SIGTERM", "SIGHUP", "SIGKILL"] as Ending[]) {
      test(`${l.name}; Reasonix ends ${ending === "normal" ? "normally" : `by ${ending}${ending === "SIGKILL" ? " (the next start cleans up)" : ""}`}: host git runs nothing`, async () => {
        const e = makeEnv({ git: l.git });
        const cmds = l.plant(e);
        if (ending === "normal") {
          const r = await run(e, [...cmds.map(bash), { text: "done" }]);
          expect(r.tools).toContain("planted");
          expect(r.tools).toContain("moved aside");
        } else {
          // One call that plants everything, then stays running until the signal.
          const one = `${cmds.map((c) => c.replace(/; sleep [\d.]+$/, "")).join(" && ")} && touch .planted && sleep 60`;
          const r = await run(e, [bash(one), { text: "never" }], ending);
          // Killed in the middle of the command, after it planted everything.
          expect(existsSync(join(e.ws, ".planted"))).toBe(true);
          expect(r.code).not.toBe(0);
          if (ending === "SIGKILL") {
            const next = await run(e, [{ text: "hello again" }]);
            expect(next.stderr).toContain("moved aside");
          }
        }
        assertHostGitClean(e, l.victims);
      }, 120_000);
    }
  }

  test("write_file cannot assemble a repository from plain files (HEAD, objects, refs, config)", async () => {
    for (const git_ of [true, false]) {
      const e = makeEnv({ git: git_ });
      const dir = git_ ? "src" : "";
      const p = (n: string) => (dir ? `${dir}/${n}` : n);
      const r = await run(e, [
        write(p("HEAD"), "ref: refs/heads/main\n"),
        write(p("objects/info/keep"), ""),
        write(p("refs/heads/keep"), ""),
        write(p("config"), payload(e.marker, `\tworktree = ${dir ? ".." : "."}\n`)),
        { text: "done" },
      ]);
      expect(`${r.tools}\n${r.stderr}`).toMatch(/git repository/);
      assertHostGitClean(e, [".", ...(dir ? [dir] : [])]);
    }
  }, 120_000);

  test("the planner's read-only bash cannot point git at a repository's config (git -C evil status)", async () => {
    const e = makeEnv({ extraConfig: '[agent]\nplanner_model = "mine"' });
    const evil = join(e.ws, "evil");
    must(e, e.ws, "init", "-q", "evil");
    writeFileSync(join(evil, "f.txt"), "f\n");
    must(e, evil, "add", "f.txt");
    must(e, evil, "commit", "-qm", "f");
    const inside = join(e.ws, "PWNED-by-planner");
    writeFileSync(join(evil, ".git", "config"), `${readFileSync(join(evil, ".git", "config"), "utf8")}${payload(inside)}`);
    const plan = { toolCalls: [{ name: "submit_plan", arguments: { summary: "s", steps: ["x"], verified_touchpoints: [], candidate_touchpoints: [], non_goals: [], risks: [], acceptance_criteria: [], verification_commands: [] } }] };
    const r = await run(e, [bash("git -C evil status; echo ran"), bash("cd evil && git status; echo ran"), plan, { text: "ok" }], "normal", "plan only: look at the repository");
    expect(existsSync(inside)).toBe(false);
    expect(r.tools).toContain("Refused");
  }, 120_000);

  test.skipIf(!hasTmux())("the chat's terminal is closed (tmux kill-server) in the middle of a command: the clean-up runs before the chat exits", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-gitplant-chat-")));
    roots.push(root);
    const marker = join(root, "PWNED");
    const plant = `mkdir -p src/objects/info src/refs/heads && echo 'ref: refs/heads/main' > src/HEAD && printf %s ${q(payload(marker, "\tworktree = ..\n"))} > src/config && touch .planted && sleep 60`;
    const llm = await scripted([bash(plant), { text: "never" }]);
    const ce = makeCliEnv(llm.url); // bash unconfined here ([sandbox] bash = "off"): the check runs in every mode
    roots.push(dirname(ce.workspace));
    const pane = startChat(ce, ["chat", "--permission-mode", "auto"], { bin: [binary] });
    try {
      await ready(pane);
      pane.send("go");
      await waitUntil(() => existsSync(join(ce.workspace, ".planted")), "the command planted the repository");
      pane.kill(); // the terminal goes away: SIGHUP
      // The chat moves the config aside before it exits.
      await waitUntil(() => !existsSync(join(ce.workspace, "src", "config")), "src/config was moved aside");
    } finally {
      pane.kill();
    }
    const e = { userHome: root } as Env;
    git(e, join(ce.workspace, "src"), "status");
    expect(git(e, join(ce.workspace, "src"), "config", "--get", "core.fsmonitor").stdout).not.toContain(marker);
    expect(existsSync(marker)).toBe(false);
  }, 120_000);
});

/** Poll for a state an action causes (the shared pollFor), bounded well inside the test's 120 s. */
const waitUntil = (ok: () => boolean, what: string) => pollFor(what, ok, (v) => v, { timeoutMs: 90_000 });
