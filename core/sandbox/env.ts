// The environment a tool subprocess sees: an allowlist of the parent's
// variables (PATH, HOME, locale, terminal, …) plus the names the user lists in
// [sandbox] env_passthrough, never a credential Reasonix itself holds.
// Applied in every mode: an unconfined shell must not inherit DATABASE_URL or
// the provider keys either.
import { SecretStore } from "../secrets/dotenv.ts";

/** Variables every command sees when the parent has them. */
export const ENV_ALLOWLIST: readonly string[] = [
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ",
  "TMPDIR", "TMP", "TEMP", "EDITOR", "PAGER", "COLUMNS", "LINES",
];
const ALLOWED = new Set(ENV_ALLOWLIST);
const LOCALE = /^LC_[A-Z_]+$/;
/** Only [sandbox] ssh_agent decides about the agent socket (see wrapCommand). */
const AGENT_VAR = "SSH_AUTH_SOCK";

/** Names that always look like credentials. */
const CREDENTIAL_NAME = /(^|_)(API_?KEY|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_KEY|AUTH_TOKEN|ACCESS_TOKEN|TOKEN)(_|$)/i;

/** Keys of the model providers and chat bots Reasonix talks to: Reasonix's own, matched exactly. */
const OWN_KNOWN = new Set([
  "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
  "OPENROUTER_API_KEY", "MOONSHOT_API_KEY", "DASHSCOPE_API_KEY", "AZURE_OPENAI_API_KEY",
  "TELEGRAM_BOT_TOKEN", "SLACK_BOT_TOKEN", "DISCORD_BOT_TOKEN", "FEISHU_APP_SECRET",
]);
/** Other well-known credentials: never allowlisted, but a user may pass them through (gh, aws). */
const OTHER_KNOWN = new Set(["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"]);

/** Reasonix's own control variables that must not steer a child (it could reach the state dir). */
const REASONIX_CONTROL = /^REASONIX_/;

export interface ChildEnvOptions {
  /** Reasonix's own credential names (every key in $REASONIX_HOME/.env, api_key_env names from config): removed even when passed through. */
  strip?: Iterable<string>;
  /** Extra names to keep ([sandbox] env_passthrough, user config only). */
  passthrough?: Iterable<string>;
  /** Variables to set last (e.g. TMPDIR, SSH_AUTH_SOCK). */
  set?: Record<string, string>;
}

export function isCredentialName(name: string): boolean {
  return OWN_KNOWN.has(name) || OTHER_KNOWN.has(name) || CREDENTIAL_NAME.test(name) || REASONIX_CONTROL.test(name);
}

/** Names that never reach a command, whatever env_passthrough says: Reasonix's own keys and control variables. */
const isReasonixOwn = (name: string, strip: ReadonlySet<string>): boolean => strip.has(name) || OWN_KNOWN.has(name) || REASONIX_CONTROL.test(name);

export function childEnv(base: NodeJS.ProcessEnv, opts: ChildEnvOptions = {}): Record<string, string> {
  const strip = new Set(opts.strip ?? []);
  const passthrough = new Set(opts.passthrough ?? []);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || k === AGENT_VAR || isReasonixOwn(k, strip)) continue;
    // A name the user passes through on purpose may look like a credential
    // (GH_TOKEN for gh); an allowlisted one never should (fail closed).
    if (passthrough.has(k) || ((ALLOWED.has(k) || LOCALE.test(k)) && !isCredentialName(k))) out[k] = v;
  }
  return { ...out, ...opts.set };
}

/**
 * Names of the credentials Reasonix itself holds: every key in
 * $REASONIX_HOME/.env plus the *_env names the config points at. Pass them
 * as `strip` so a key with an unusual name is removed too.
 */
export function savedCredentialNames(config: Record<string, unknown>, dotenvPath: string): string[] {
  const names = new Set<string>();
  try {
    for (const k of new SecretStore(dotenvPath).read().keys()) names.add(k);
  } catch {
    // An unreadable .env only means nothing extra is known to strip.
  }
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (/_env$/.test(k) && typeof x === "string" && x !== "") names.add(x);
        else visit(x);
      }
    }
  };
  visit(config);
  return [...names];
}
