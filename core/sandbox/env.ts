// The environment a tool subprocess sees: the parent's, minus credentials.
// Applied in every mode (an unconfined shell still must not inherit the
// provider keys Reasonix itself holds).
import { SecretStore } from "../secrets/dotenv.ts";

/** Names that always look like credentials. */
const CREDENTIAL_NAME = /(^|_)(API_?KEY|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_KEY|AUTH_TOKEN|ACCESS_TOKEN|TOKEN)(_|$)/i;

/** Well-known provider and bot variables, matched exactly. */
const KNOWN = new Set([
  "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
  "OPENROUTER_API_KEY", "MOONSHOT_API_KEY", "DASHSCOPE_API_KEY", "AZURE_OPENAI_API_KEY",
  "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
  "TELEGRAM_BOT_TOKEN", "SLACK_BOT_TOKEN", "DISCORD_BOT_TOKEN", "FEISHU_APP_SECRET",
]);

/** Reasonix's own control variables that must not steer a child (it could reach the state dir). */
const REASONIX_CONTROL = /^REASONIX_/;

export interface ChildEnvOptions {
  /** Extra names to remove (e.g. every key in $REASONIX_HOME/.env, api_key_env names from config). */
  strip?: Iterable<string>;
  /** Variables to set after stripping (e.g. TMPDIR). */
  set?: Record<string, string>;
}

export function isCredentialName(name: string): boolean {
  return KNOWN.has(name) || CREDENTIAL_NAME.test(name) || REASONIX_CONTROL.test(name);
}

export function childEnv(base: NodeJS.ProcessEnv, opts: ChildEnvOptions = {}): Record<string, string> {
  const strip = new Set(opts.strip ?? []);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || strip.has(k) || isCredentialName(k)) continue;
    out[k] = v;
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
