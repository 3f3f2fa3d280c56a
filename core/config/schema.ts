/**
 * The shape of config.toml / reasonix.toml. Validation walks this tree:
 * wrong types are errors naming the dotted key, unknown keys are warnings.
 * Each feature owns its section here; keep defaults beside the field.
 */
import { DEFAULT_CRASH_ENDPOINT } from "../crash/endpoint.ts";
import { DEFAULT_TELEMETRY_ENDPOINT } from "../telemetry/endpoint.ts";
import { EFFORTS, PERMISSION_MODES } from "../protocol/modes.ts";
import { LANGUAGE_SETTINGS } from "../protocol/i18n/index.ts";
import { THEME_MODES, THEME_STYLES } from "../protocol/theme.ts";

export type FieldSpec =
  | { type: "string" | "boolean" | "number" | "integer"; default?: unknown; doc?: string }
  | { type: "enum"; values: readonly string[]; default?: string; doc?: string }
  | { type: "array"; items: FieldSpec; default?: unknown[]; doc?: string }
  | { type: "table"; fields?: Record<string, FieldSpec>; values?: FieldSpec; doc?: string }
  | { type: "tables"; fields: Record<string, FieldSpec>; doc?: string };

const str = (doc?: string, def?: string): FieldSpec => ({ type: "string", doc, default: def });
const bool = (doc?: string, def?: boolean): FieldSpec => ({ type: "boolean", doc, default: def });
const num = (doc?: string, def?: number): FieldSpec => ({ type: "number", doc, default: def });
const int = (doc?: string, def?: number): FieldSpec => ({ type: "integer", doc, default: def });
const strs = (doc?: string, def?: string[]): FieldSpec => ({ type: "array", items: { type: "string" }, doc, default: def });
const anyTable = (doc?: string): FieldSpec => ({ type: "table", doc });

const providerFields: Record<string, FieldSpec> = {
  name: str("provider name, referenced by default_model"),
  kind: { type: "enum", values: ["openai", "anthropic", "responses"], doc: "wire protocol" },
  base_url: str("API base URL"),
  model: str("model id sent to the API"),
  models: strs("several model ids"),
  api_key_env: str("name of the variable in $REASONIX_HOME/.env holding the key"),
  full_url: bool("send requests to base_url as-is"),
  models_url: str("model discovery URL"),
  headers: { type: "table", values: { type: "string" }, doc: "static request headers" },
  extra_body: anyTable("fields merged into every request body"),
  context_window: int("context window in tokens (0 = unknown)"),
  max_output_tokens: int("max output tokens (0 = provider default)"),
  vision: bool("the model accepts images (@image.png, pasted images)", false),
  web_search: bool("anthropic kind: offer the provider's own web_search tool (Anthropic, DeepSeek)", false),
  first_byte_timeout_seconds: num("give up an attempt (and retry) when nothing arrives this long after the request (default 30; 300 for a server on this machine and for OpenAI reasoning models on the openai kind)"),
  idle_timeout_seconds: num("give up an attempt (and retry) when the stream is silent this long mid-answer", 120),
  auth: { type: "enum", values: ["x-api-key", "bearer"], doc: "anthropic kind: send the key as x-api-key (default) or Authorization: Bearer" },
  capability: { type: "enum", values: ["auto", "deepseek-thinking", "openai-reasoning", "plain"], default: "auto", doc: "reasoning request shape (auto: detected from base_url and model)" },
  thinking: { type: "enum", values: ["auto", "enabled", "disabled", "adaptive"], default: "auto", doc: "thinking.type override (auto: the provider's default)" },
  reasoning_effort: { type: "enum", values: EFFORTS, doc: "default reasoning effort (a session's /effort overrides it)" },
  prices: {
    type: "table",
    doc: "price per million tokens, for cost receipts",
    fields: { input: num("input tokens"), output: num("output tokens"), cache_hit: num("cached input tokens (default: input)"), cache_write: num("input tokens written to the prompt cache (default: input; Anthropic charges 1.25× input)"), currency: str("currency label", "USD") },
  },
};

const forwardFields: Record<string, FieldSpec> = {
  type: { type: "enum", values: ["local", "remote"], doc: "local (-L) or remote (-R)" },
  bind: str("listen address host:port"),
  target: str("target address host:port"),
};

const remoteHostFields: Record<string, FieldSpec> = {
  name: str("host alias"),
  host: str("address or name"),
  port: int("SSH port", 22),
  user: str("login user"),
  identity_file: str("private key path"),
  passphrase_env: str("variable in $REASONIX_HOME/.env holding the key passphrase"),
  password_env: str("variable in $REASONIX_HOME/.env holding the password"),
  proxy_jump: str("jump host spec user@host:port"),
  use_ssh_config: bool("resolve via `ssh -G` at connect time"),
  workspace: str("remote workspace directory"),
  serve_install: { type: "enum", values: ["auto", "upload", "npm", "never"], default: "auto" },
  credentials: { type: "enum", values: ["remote", "local-proxy"], default: "remote", doc: "where provider keys live: the remote's own .env, or here (the remote calls models through a proxy on this machine while connected)" },
  forwards: { type: "tables", fields: forwardFields },
};

export const configSchema: Record<string, FieldSpec> = {
  default_model: str("provider name used when --model is not given"),
  language: { type: "enum", values: LANGUAGE_SETTINGS, default: "auto", doc: "interface language of the chat and the web UI: zh, en, or auto ($REASONIX_LANG, then the locale; docs/language.md)" },
  providers: { type: "tables", fields: providerFields, doc: "model providers" },
  agent: {
    type: "table",
    fields: {
      compact_ratio: num("compact when the conversation passes this share of context_window", 0.8),
      max_steps: int("stop a turn after this many model steps", 50),
      max_output_tokens: int("max output tokens"),
      reasoning_language: { type: "enum", values: LANGUAGE_SETTINGS, default: "auto", doc: "language the model is asked to reason in: zh, en, or auto (follows the interface language; docs/language.md)" },
      goal_max_turns: int("goal turns per run or resume before a resumable pause (0 = no limit; docs/goal.md)", 100),
      goal_token_budget: int("tokens a goal may spend per run or resume before one summary and a resumable pause (0 = off)", 0),
      goal_evaluator_timeout_seconds: num("deadline of the goal evaluator call that judges a turn without update_goal", 60),
      max_subagent_depth: int("how deep subagents may delegate (root session = 0; 0 turns the task tool off)", 2),
      max_subagent_concurrency: int("subagents running at once in one session tree (more wait)", 6),
      max_parallel_writers: int("writing subagents running at once, only on non-overlapping write_paths", 3),
      subagent_model: str("provider entry subagents run on (user config only; default: the parent's model)"),
      subagent_models: { type: "table", values: { type: "string" }, doc: "provider entry per subagent profile name (user config only)" },
      planner_model: str("provider entry of the planner, run on explicit plan requests (user config only; docs/planner.md)"),
    },
  },
  guardian: {
    type: "table",
    doc: "the Guardian risk gate for auto/yolo modes (docs/guardian.md)",
    fields: {
      enabled: bool("review risky tool calls with a second model before they run (a project may turn it on, never off)", false),
      model: str("provider entry of the reviewer (user config only; default: the session's model)"),
      timeout_seconds: num("no verdict within this long fails closed (an approval prompt, or a refusal headless)", 60),
    },
  },
  tools: {
    type: "table",
    fields: {
      enabled: strs("enabled built-in tools (empty = all)"),
      bash_timeout_seconds: int("bash tool timeout", 120),
      bash_output_limit: int("bash output cap in bytes", 30000),
    },
  },
  permissions: {
    type: "table",
    fields: {
      mode: { type: "enum", values: PERMISSION_MODES, default: "ask" },
      allow: strs("rules that never prompt", []),
      ask: strs("rules that always prompt", []),
      deny: strs("rules that always refuse", []),
    },
  },
  sandbox: {
    type: "table",
    fields: {
      bash: { type: "enum", values: ["enforce", "off"], default: "enforce" },
      workspace_root: str("file writers are confined here (default: cwd)"),
      allow_write: strs("extra writable roots", []),
      forbid_read: strs("paths hidden from the agent", []),
      network: bool("let sandboxed bash use the network", false),
      ssh_agent: bool("pass SSH_AUTH_SOCK and its socket into sandboxed bash (user config only)", false),
      env_passthrough: strs("extra environment variable names sandboxed bash may see (user config only)", []),
    },
  },
  web_fetch: {
    type: "table",
    doc: "the web_fetch tool (each domain also needs a permission: WebFetch(domain:…))",
    fields: {
      allow_private: bool("reach loopback, private and link-local addresses too (user config only)", false),
      max_bytes: int("read at most this many bytes of a response", 2097152),
      timeout_seconds: num("give up a fetch after this long", 30),
      max_redirects: int("same-host redirects followed", 5),
    },
  },
  serve: {
    type: "table",
    fields: {
      addr: str("listen address", "127.0.0.1:8787"),
      auth_mode: { type: "enum", values: ["none", "token", "password"], default: "token" },
      token: str("fixed token (empty = generate)"),
      password_hash: str("bcrypt hash from `reasonix serve --hash-password`"),
      behind_proxy: bool("trust X-Forwarded-* headers", false),
      public_hosts: strs("extra Host names accepted besides the bound address", []),
    },
  },
  remote: {
    type: "table",
    fields: {
      hosts: { type: "tables", fields: remoteHostFields },
      keepalive_interval_ms: int("probe a silent link this often", 1000),
      keepalive_count_max: int("silent probe intervals (plus one) before the link is dead", 4),
    },
  },
  secrets: anyTable("reserved for secret storage settings"),
  trust: {
    type: "table",
    doc: "workspaces whose project inputs the user approved (written by `reasonix trust`)",
    fields: {
      workspaces: {
        type: "table",
        doc: "keyed by the workspace's real path",
        values: {
          type: "table",
          fields: {
            inputs: { type: "table", values: { type: "string" }, doc: "project input (relative path) → sha256 of the approved content" },
            trusted_at: str("when it was approved (ISO time)"),
          },
        },
      },
    },
  },
  telemetry: {
    type: "table",
    doc: "opt-in usage counters (docs/telemetry.md; user config only)",
    fields: {
      mode: { type: "enum", values: ["auto", "on", "off"], default: "auto", doc: "auto: interactive terminal chats only (after you said yes once); on: also run, serve/web, acp, mcp serve and remote connect; off: never" },
      endpoint: str("where the daily ping goes (https, or http to 127.0.0.1)", DEFAULT_TELEMETRY_ENDPOINT),
    },
  },
  report: {
    type: "table",
    doc: "crash reports (docs/crash-reports.md; user config only)",
    fields: { endpoint: str("where `reasonix report send` posts a report (https, or http to 127.0.0.1)", DEFAULT_CRASH_ENDPOINT) },
  },
  plugins: {
    type: "tables",
    doc: "MCP servers (docs/mcp.md)",
    fields: {
      name: str(), command: str(), args: strs(), env: { type: "table", values: { type: "string" } },
      url: str(), startup_timeout_seconds: int(), call_timeout_seconds: int(),
      type: { type: "enum", values: ["stdio", "http", "sse"], default: "stdio", doc: "transport" },
      cwd: str("working directory of a stdio server (default: the workspace)"),
      headers: { type: "table", values: { type: "string" }, doc: "static HTTP headers (${VAR} expanded)" },
      tool_timeout_seconds: { type: "table", values: { type: "number" }, doc: "per-tool call timeout, by the server's tool name" },
      enabled: bool("start this server", true),
      sandbox: bool("run a stdio server inside the OS sandbox (false: user config only)", true),
      oauth: {
        type: "table",
        doc: "pre-registered OAuth client / client-credentials grant (user config only; secrets in $REASONIX_HOME/.env)",
        fields: {
          client_id: str("client id the authorization server issued"),
          client_secret_env: str("variable in $REASONIX_HOME/.env holding the client secret"),
          private_key_env: str("variable in $REASONIX_HOME/.env holding a PEM key (private_key_jwt)"),
          signing_algorithm: str("JWS algorithm for private_key_jwt", "RS256"),
          issuer: str("the authorization server the credentials may be sent to"),
          grant: { type: "enum", values: ["authorization_code", "client_credentials"], default: "authorization_code", doc: "OAuth grant" },
          scope: str("scope to request"),
        },
      },
    },
  },
  mcp: {
    type: "table",
    fields: {
      startup_grace_seconds: num("how long a turn waits for MCP servers still starting", 3),
      registry_url: str("MCP Registry base URL for `reasonix mcp browse/install` (user config only)", "https://registry.modelcontextprotocol.io"),
    },
  },
  skills: {
    type: "table",
    doc: "skills (docs/commands.md#skills)",
    fields: {
      paths: strs("extra folders holding skill folders (SKILL.md)", []),
      excluded_paths: strs("folders whose skills are skipped", []),
      disabled_skills: strs("skill names listed but not loaded", []),
    },
  },
  hooks: {
    type: "tables",
    doc: "commands run at agent events (docs/commands.md#hooks)",
    fields: {
      event: { type: "enum", values: ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact"], doc: "when it runs" },
      matcher: str("tool-name pattern for PreToolUse/PostToolUse (regex, `*` or empty = all)"),
      command: str("shell command; gets the event as JSON on stdin"),
      timeout_seconds: num("kill the hook after this long", 60),
    },
  },
  memory: {
    type: "table",
    doc: "remembered facts (docs/memory.md; user config only)",
    fields: { recall: bool("append the facts relevant to each message to it (at most 4 facts, 2,400 characters)", true) },
  },
  web: {
    type: "table",
    doc: "the browser UI of `reasonix web` and `reasonix serve` (user config only; docs/serve.md)",
    fields: { theme: { type: "enum", values: THEME_MODES, default: "auto", doc: "older name of [ui] theme, read when that is unset" } },
  },
  ui: {
    type: "table",
    doc: "colours of the terminal chat and the web UI (user config only; /theme sets them; docs/cli.md#themes)",
    fields: {
      theme: { type: "enum", values: THEME_MODES, default: "auto", doc: "light, dark, or auto: the terminal's or the browser's own preference (REASONIX_THEME overrides it for one run)" },
      theme_style: { type: "enum", values: THEME_STYLES, default: "default", doc: "accent palette (REASONIX_THEME_STYLE overrides it for one run)" },
    },
  },
  mcp_server: {
    type: "table",
    doc: "`reasonix mcp serve` (user config only)",
    fields: { allow_writes: bool("let MCP clients run tasks that change files", false) },
  },
};

/** Sections only the user's own config may set: a cloned repo must not steer them. */
export const userOnlySections = new Set(["remote", "serve", "secrets", "telemetry", "report", "trust", "mcp_server", "memory", "web", "ui"]);

/** Single keys only the user's own config may set, trusted workspace or not. */
export const userOnlyKeys = new Set(["agent.subagent_model", "agent.subagent_models", "sandbox.ssh_agent", "sandbox.env_passthrough", "web_fetch.allow_private", "guardian.model", "agent.planner_model", "mcp.registry_url"]);
