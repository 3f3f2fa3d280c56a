// The agents `npm run bench -- peers` compares Reasonix with: where each is
// installed (a cache folder outside the repository), how to point it at the
// local scripted endpoint in the wire format it speaks, and how the scripted
// model finds its tools (by their names and parameters in each request).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { RecordedRequest, ReplyStep } from "../../core/testing/scripted-llm.ts";

export type Wire = "chat" | "responses" | "anthropic";

export interface PeerRun {
  argv: string[];
  env: Record<string, string | undefined>;
}

export interface Peer {
  name: string;
  /** The npm package and the file its bin lives at, inside the cache folder. */
  pkg: string;
  bin: string;
  wire: Wire;
  /** argv (after the bin) and env for one headless prompt against `url` (its base URL), with a private config under `dir` (which exists). */
  run(prompt: string, url: string, dir: string, baseEnv: Record<string, string | undefined>): PeerRun;
  /** argv (after the bin) of its HTTP server on a free port of 127.0.0.1, printing its address (env: as `run` makes it); absent: it has none. */
  serveArgv?: string[];
}

export const defaultCacheDir = (): string => join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "reasonix-bench", "peers");

export const PEERS: Peer[] = [
  {
    name: "codex",
    pkg: "@openai/codex",
    bin: "node_modules/.bin/codex",
    wire: "responses",
    run(prompt, url, dir, baseEnv) {
      writeFileSync(
        join(dir, "config.toml"),
        ['model = "bench-model"', 'model_provider = "bench"', 'approval_policy = "never"', 'sandbox_mode = "danger-full-access"', "[model_providers.bench]", 'name = "bench"', `base_url = "${url}"`, 'env_key = "BENCH_KEY"', 'wire_api = "responses"', ""].join("\n"),
      );
      return { argv: ["exec", "--skip-git-repo-check", prompt], env: { ...baseEnv, CODEX_HOME: dir, BENCH_KEY: "sk-bench" } };
    },
  },
  {
    name: "claude-code",
    pkg: "@anthropic-ai/claude-code",
    bin: "node_modules/.bin/claude",
    wire: "anthropic",
    run(prompt, url, dir, baseEnv) {
      return {
        argv: ["-p", prompt, "--model", "bench-model", "--allowedTools", "Bash,Read"],
        env: { ...baseEnv, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-bench", CLAUDE_CONFIG_DIR: dir, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1" },
      };
    },
  },
  {
    name: "opencode",
    pkg: "opencode-ai",
    bin: "node_modules/.bin/opencode",
    wire: "chat",
    serveArgv: ["serve", "--port", "0", "--hostname", "127.0.0.1"],
    run(prompt, url, dir, baseEnv) {
      const config = { $schema: "https://opencode.ai/config.json", autoupdate: false, share: "disabled", model: "bench/bench-model", permission: { edit: "allow", bash: "allow" }, provider: { bench: { npm: "@ai-sdk/openai-compatible", name: "bench", options: { baseURL: url, apiKey: "sk-bench" }, models: { "bench-model": { name: "bench-model" } } } } };
      writeFileSync(join(dir, "opencode.json"), JSON.stringify(config));
      return { argv: ["run", prompt], env: { ...baseEnv, OPENCODE_CONFIG: join(dir, "opencode.json"), XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data"), XDG_CACHE_HOME: join(dir, "cache"), XDG_STATE_HOME: join(dir, "state"), OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1" } };
    },
  },
];

export type PeerStatus = { peer: Peer; ok: true; path: string; version: string } | { peer: Peer; ok: false; reason: string };

/** Installs the peers' packages into `cacheDir` with npm (one `npm install`); returns npm's complaint, if any. */
export function installPeers(cacheDir: string, peers: readonly Peer[]): string | undefined {
  mkdirSync(cacheDir, { recursive: true });
  if (!existsSync(join(cacheDir, "package.json"))) writeFileSync(join(cacheDir, "package.json"), '{ "private": true }\n');
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--save-exact", ...peers.map((p) => p.pkg)], { cwd: cacheDir, encoding: "utf8", timeout: 15 * 60_000 });
  if (r.error) return `npm could not run (${r.error.message})`;
  return r.status === 0 ? undefined : `npm install failed: ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ")}`;
}

/** Whether each peer is installed in `cacheDir` and answers `--version`; the reason when not. */
export function peerStatus(peer: Peer, cacheDir: string): PeerStatus {
  const path = join(cacheDir, peer.bin);
  if (!existsSync(path)) return { peer, ok: false, reason: `not installed (no ${path}; run without --no-install to install ${peer.pkg} there)` };
  const r = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 60_000, env: { ...process.env, DISABLE_AUTOUPDATER: "1" } });
  if (r.error || r.status !== 0) return { peer, ok: false, reason: `\`${peer.bin} --version\` failed: ${(r.error?.message ?? r.stderr ?? "").trim().split("\n")[0]}` };
  let version = r.stdout.trim().split("\n")[0] ?? "";
  try {
    version ||= JSON.parse(readFileSync(join(cacheDir, "node_modules", peer.pkg, "package.json"), "utf8")).version;
  } catch {}
  return { peer, ok: true, path, version };
}

// ---------------------------------------------------------------- the scripted model's side

interface ToolSpec {
  name: string;
  props: Record<string, { type?: string | string[] }>;
}

/** The function tools a request offers, in any of the three wire formats. */
export function toolsOf(req: RecordedRequest): ToolSpec[] {
  const list: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  return list.flatMap((t) => {
    const fn = t.function ?? t;
    const schema = fn.parameters ?? fn.input_schema ?? {};
    return typeof fn.name === "string" ? [{ name: fn.name, props: schema.properties ?? {} }] : [];
  });
}

const READ = /^(read_file|read|Read|view)$/;
const SHELL = /^(bash|Bash|shell|shell_command|exec_command|local_shell)$/;

/** A call that reads `file` (absolute `abs`) with the request's read tool, or its shell running `cat`. */
export function readCall(tools: ToolSpec[], file: string, abs: string): { name: string; arguments: Record<string, unknown> } | undefined {
  const t = tools.find((x) => READ.test(x.name));
  if (t) {
    const key = Object.keys(t.props).find((k) => /^(file_?path|path|filePath)$/i.test(k)) ?? "path";
    return { name: t.name, arguments: { [key]: /path/i.test(key) && key !== "path" ? abs : file } };
  }
  return shellCall(tools, `cat ${file}`);
}

/** A call that runs `command` with the request's shell tool. */
export function shellCall(tools: ToolSpec[], command: string): { name: string; arguments: Record<string, unknown> } | undefined {
  const t = tools.find((x) => SHELL.test(x.name));
  if (!t) return undefined;
  if ("cmd" in t.props) return { name: t.name, arguments: { cmd: command } };
  const c = t.props.command;
  const isArray = c && (c.type === "array" || (Array.isArray(c.type) && c.type.includes("array")));
  return { name: t.name, arguments: { command: isArray ? ["bash", "-lc", command] : command, ...("description" in t.props ? { description: "bench step" } : {}) } };
}

/**
 * The scripted model of one run: `n` tool rounds (each made by `call` from the
 * request's tools), then an answer. Requests without the tools (titles,
 * summaries, quota checks) get a short answer and do not count.
 */
export function scriptedAgent(n: number, call: (tools: ToolSpec[]) => ReturnType<typeof shellCall>, final: ReplyStep = { text: "done" }): { step: (req: RecordedRequest) => ReplyStep; rounds: () => number } {
  let done = 0;
  return {
    rounds: () => done,
    step(req) {
      const tools = toolsOf(req);
      if (tools.length === 0) return { text: "ok" };
      if (done >= n) return final;
      const c = call(tools);
      if (!c) return { text: `no usable tool among ${tools.map((t) => t.name).join(", ")}` };
      done++;
      return { toolCalls: [c] };
    },
  };
}
