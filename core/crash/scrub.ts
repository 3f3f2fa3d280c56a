// The scrubbers a crash report goes through when it is saved and again right
// before it is sent: known secret values, credential-looking assignments,
// token shapes, e-mail addresses, long identifiers and home directories.
// Stacks keep only `<path>/file.ts:line` per frame.
import { homedir } from "node:os";
import { isCredentialName } from "../sandbox/env.ts";

export interface ScrubContext {
  /** Exact secret values to blank (the .env values, credential variables of the environment). */
  secrets: string[];
  /** Home directories to replace with `~`. */
  homes: string[];
}

/** Secret values shorter than this are not matched literally (too many false hits). */
const MIN_SECRET = 6;

/** What this process knows to be secret: credential-named variables of `env`, plus `extra` (the .env values). */
export function scrubContext(env: NodeJS.ProcessEnv = process.env, extra: Iterable<string> = []): ScrubContext {
  const secrets = new Set<string>();
  for (const [k, v] of Object.entries(env)) if (v && v.length >= MIN_SECRET && isCredentialName(k) && !k.startsWith("REASONIX_")) secrets.add(v);
  for (const v of extra) if (v.length >= MIN_SECRET) secrets.add(v);
  const homes = new Set<string>();
  for (const h of [env.HOME, env.USERPROFILE, safeHomedir()]) if (h && h.length > 1) homes.add(h.replace(/[\\/]+$/, ""));
  // Longest first, so a value that contains another one is blanked whole.
  return { secrets: [...secrets].sort((a, b) => b.length - a.length), homes: [...homes].sort((a, b) => b.length - a.length) };
}

function safeHomedir(): string | undefined {
  try { return homedir(); } catch { return undefined; }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Token shapes of well-known services, whatever variable they came from. */
const TOKEN_SHAPES: RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}/g, // OpenAI / Anthropic / DeepSeek style keys
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{20,}/g, // Google API key
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)?/g, // JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

/** `NAME=value`, `NAME: value`, `"name": "value"` where NAME looks like a credential. */
const ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_-]*)(["']?\s*[:=]\s*["']?)([^\s"',;&]+)/g;
/** `Authorization: Bearer x`, `token x`, `Basic x`. */
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/** Credentials in a URL: `scheme://user:pass@host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@:]+(?::[^/\s@]*)?@/gi;
const QUERY_SECRET = /([?&](?:access_token|token|key|api_key|apikey|code|secret|password|sig|signature)=)[^&\s#]+/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** Any home directory of any user, on the three platforms. */
const OTHER_HOMES = [/\/home\/[^/\s:]+/g, /\/Users\/[^/\s:]+/g, /[A-Za-z]:\\Users\\[^\\\s:]+/gi, /\/root(?=\/|\b)/g];
/** Long identifiers (session ids, hashes, UUIDs, opaque tokens): 20+ chars of id alphabet with a digit and a letter. */
const LONG_ID = /[A-Za-z0-9_+=-]{20,}/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX = /\b[0-9a-f]{16,}\b/gi;

/** `password is hunter2`, `the pw: x`: a password said in words rather than as NAME=value. */
const PASSWORD_WORDS = /\b(?:password|passwd|passphrase|pwd|pin)\b\s*(?:is|was|=|:)\s*\S+/i;

/**
 * What in `text` looks like a secret (the shapes scrubText blanks: known
 * secret values, service tokens, credentials in assignments, auth headers,
 * URLs and query strings), plus passwords said in words. Empty when none.
 * Emails, home paths and ordinary ids do not count.
 */
export function secretFindings(text: string, ctx: ScrubContext = scrubContext()): string[] {
  const found: string[] = [];
  const once = (re: RegExp) => new RegExp(re.source, re.flags.replace("g", "")).test(text);
  if (ctx.secrets.some((v) => text.includes(v))) found.push("a known secret value");
  if (TOKEN_SHAPES.some(once)) found.push("a token or key");
  if (once(AUTH_SCHEME)) found.push("an authorization header");
  if (once(URL_USERINFO)) found.push("credentials in a URL");
  if (once(QUERY_SECRET)) found.push("a secret in a query string");
  const cred = [...text.matchAll(ASSIGNMENT)].find((m) => isCredentialName(m[1]!.replace(/-/g, "_")));
  if (cred) found.push(`a credential assignment (${cred[1]})`);
  if (PASSWORD_WORDS.test(text)) found.push("a password");
  return found;
}

const looksLikeId = (s: string): boolean => /[0-9]/.test(s) && /[A-Za-z]/.test(s) && !/^[a-z]+(?:[-_][a-z]+)*$/i.test(s);

/** Scrub one piece of free text. Idempotent: scrubbing a scrubbed text changes nothing. */
export function scrubText(text: string, ctx: ScrubContext = scrubContext()): string {
  let s = text;
  for (const secret of ctx.secrets) s = s.split(secret).join("<secret>");
  for (const re of TOKEN_SHAPES) s = s.replace(re, "<token>");
  s = s.replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} <token>`);
  s = s.replace(URL_USERINFO, "$1<user>@");
  s = s.replace(QUERY_SECRET, "$1<secret>");
  s = s.replace(ASSIGNMENT, (m, name: string, sep: string, value: string) => (isCredentialName(name.replace(/-/g, "_")) && !value.startsWith("<") ? `${name}${sep}<secret>` : m));
  s = s.replace(EMAIL, "<email>");
  for (const home of ctx.homes) s = s.replace(new RegExp(`${escapeRe(home)}(?=[\\\\/]|\\b|$)`, "g"), "~");
  for (const re of OTHER_HOMES) s = s.replace(re, "~");
  s = s.replace(UUID, "<id>").replace(HEX, "<id>");
  s = s.replace(LONG_ID, (m) => (looksLikeId(m) ? "<id>" : m));
  return s;
}

/**
 * A frame inside a compiled release binary (`/$bunfs/root/…`, `B:\~BUN\root\…`
 * on Windows): minified code, where only line AND column locate anything —
 * with the report's commit, in a build of that commit with a source map.
 */
const BUNDLE_FRAME = /(?:\/\$bunfs\/|[A-Za-z]:[\\/]~BUN[\\/])(?:root[\\/])?([^\\/\s()]+):(\d+):(\d+)\)?\s*$/;

/**
 * A stack as frames only: `at fn (<path>/file.ts:12)`. The message lines are
 * dropped (the report carries the scrubbed message separately), columns
 * (except in a release binary's bundle: `<bundle>/chunk.js:3:48211`),
 * directories and anything that is not a location (arguments, eval text) go.
 */
export function reduceStack(stack: string | undefined, ctx: ScrubContext = scrubContext()): string[] {
  if (!stack) return [];
  const frames: string[] = [];
  for (const raw of stack.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("at ")) continue;
    const loc = /(?:\(|\s|^)((?:[A-Za-z]:)?[^\s()]*?)([^\\/\s()]+\.(?:[cm]?[jt]sx?)):(\d+)(?::\d+)?\)?\s*$/.exec(line);
    const bundled = BUNDLE_FRAME.exec(line);
    const fnMatch = /^at\s+(?:async\s+)?([A-Za-z0-9_$.<>[\] ]+?)\s+\(/.exec(line);
    const fn = fnMatch ? scrubText(fnMatch[1]!.replace(/\s+/g, " "), ctx) : undefined;
    if (bundled) frames.push(`at ${fn ?? "<anonymous>"} (<bundle>/${bundled[1]}:${bundled[2]}:${bundled[3]})`);
    else if (loc) frames.push(`at ${fn ? `${fn} ` : ""}(<path>/${loc[2]}:${loc[3]})`);
    else if (/\bnative\b/.test(line)) frames.push(`at ${fn ?? "<native>"} (native)`);
    else frames.push(`at ${fn ?? "<anonymous>"} (<unknown>)`);
    if (frames.length >= 50) break;
  }
  return frames;
}
