/**
 * OpenSSH known_hosts parsing and matching (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT").
 *
 * Supported: hashed names (`|1|salt|hash`), `[host]:port`, comma lists, `*` and
 * `?` wildcards, `!` negation, `@revoked`, comments and blank lines. `@cert-authority`
 * lines are parsed but never match (certificates are not supported). A malformed
 * line becomes a warning naming file:line; it never throws.
 */
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";

export type Marker = "revoked" | "cert-authority" | null;

export interface KnownHostEntry {
  file: string;
  line: number;
  marker: Marker;
  /** The raw host field (comma list or hashed name). */
  hosts: string;
  keyType: string;
  /** Base64 key blob as written in the file. */
  keyBase64: string;
}

export interface ParsedKnownHosts {
  entries: KnownHostEntry[];
  warnings: string[];
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseKnownHosts(text: string, file: string): ParsedKnownHosts {
  const entries: KnownHostEntry[] = [];
  const warnings: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) return;
    const fields = line.split(/\s+/);
    let marker: Marker = null;
    if (fields[0]!.startsWith("@")) {
      const m = fields.shift()!;
      if (m === "@revoked") marker = "revoked";
      else if (m === "@cert-authority") marker = "cert-authority";
      else {
        warnings.push(`${file}:${i + 1}: unknown marker ${m}; line ignored`);
        return;
      }
    }
    const [hosts, keyType, keyBase64] = fields;
    if (!hosts || !keyType || !keyBase64 || !BASE64.test(keyBase64) || /^\d+$/.test(keyType)) {
      // A numeric second field is the SSH-1 RSA format, which no server speaks any more.
      warnings.push(`${file}:${i + 1}: malformed known_hosts line; ignored`);
      return;
    }
    const blobType = blobKeyType(Buffer.from(keyBase64, "base64"));
    if (blobType !== keyType && !keyType.includes("-cert-")) {
      warnings.push(`${file}:${i + 1}: key type ${keyType} does not match its key data; line ignored`);
      return;
    }
    entries.push({ file, line: i + 1, marker, hosts, keyType, keyBase64 });
  });
  return { entries, warnings };
}

/** The type string at the start of an SSH public key blob, or null. */
export function blobKeyType(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const n = blob.readUInt32BE(0);
  if (n > 64 || 4 + n > blob.length) return null;
  return blob.subarray(4, 4 + n).toString("latin1");
}

/** The name a host is recorded under: `host` on port 22, `[host]:port` otherwise. */
export function hostKeyName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** OpenSSH's match_pattern: `*` any run, `?` any one character; case-insensitive for host names. */
export function globMatch(text: string, pattern: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`, "i");
  return re.test(text);
}

function hashedMatch(name: string, hashed: string): boolean {
  const parts = hashed.split("|"); // ["", "1", salt, hash]
  if (parts.length !== 4 || parts[1] !== "1") return false;
  const salt = Buffer.from(parts[2]!, "base64");
  const want = parts[3]!;
  return createHmac("sha1", salt).update(name).digest("base64") === want;
}

/**
 * Does the entry's host field name this host? Returns true/false. A negated
 * pattern that matches wins over everything else on the line (OpenSSH semantics).
 */
export function hostFieldMatches(field: string, host: string, port: number): boolean {
  const name = hostKeyName(host, port);
  if (field.startsWith("|")) return hashedMatch(name, field);
  let positive = false;
  for (const pat of field.split(",")) {
    if (pat === "") continue;
    const negate = pat.startsWith("!");
    const p = negate ? pat.slice(1) : pat;
    if (globMatch(name, p)) {
      if (negate) return false;
      positive = true;
    }
  }
  return positive;
}

export function readKnownHostsFile(file: string): ParsedKnownHosts {
  if (!existsSync(file)) return { entries: [], warnings: [] };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { entries: [], warnings: [`${file}: cannot read (${(e as Error).message})`] };
  }
  return parseKnownHosts(text, file);
}
