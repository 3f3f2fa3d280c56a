import { HostKeyMismatch, HostKeyRevoked, HostUnknown } from "../ssh/errors.ts";
import type { Prompter } from "../ssh/prompt.ts";
import { describeKey, keyTypeLabel, sha256Fingerprint } from "./fingerprint.ts";
import { blobKeyType, hostKeyName } from "./known-hosts.ts";
import type { KnownHosts } from "./store.ts";

export interface HostKeyPolicy {
  knownHosts: KnownHosts;
  /** Accept and record a first-seen key without asking (`--accept-new`). */
  acceptNew: boolean;
  prompter: Prompter;
  warn: (message: string) => void;
}

export interface HostKeyDecision {
  /** How the key was trusted: already recorded, newly accepted (and where it was recorded). */
  outcome: "known" | "accepted";
  fingerprint: string;
  recordedAt: string;
}

/**
 * Decide whether to trust `blob` as the key of host:port. Throws HostKeyMismatch,
 * HostKeyRevoked or HostUnknown; never prompts about a mismatch.
 */
export async function verifyHostKey(host: string, port: number, blob: Buffer, policy: HostKeyPolicy): Promise<HostKeyDecision> {
  const name = hostKeyName(host, port);
  const fingerprint = sha256Fingerprint(blob);
  for (const w of policy.knownHosts.warnings) policy.warn(w);
  const result = policy.knownHosts.check(host, port, blob);
  switch (result.status) {
    case "known":
      return { outcome: "known", fingerprint, recordedAt: `${result.entry.file}:${result.entry.line}` };
    case "revoked":
      throw new HostKeyRevoked(name, `${result.entry.file}:${result.entry.line}`);
    case "mismatch":
      throw new HostKeyMismatch(name, `${result.entry.file}:${result.entry.line}`, fingerprint);
  }
  for (const ca of result.certAuthority) {
    policy.warn(`${ca.file}:${ca.line}: @cert-authority entries are not supported; treating ${name} as unknown`);
  }
  const type = blobKeyType(blob) ?? "unknown";
  if (result.otherTypes.length > 0) {
    const o = result.otherTypes[0]!;
    policy.warn(`${name} has a recorded ${keyTypeLabel(o.keyType)} key (${o.file}:${o.line}) but offered a ${keyTypeLabel(type)} key`);
  }
  // --accept-new is for hosts met for the first time. A host with a recorded key of another
  // type is not new: a server offering only a type we have no record of is exactly what an
  // interceptor would do, so that takes a person's confirmation.
  const recorded = result.otherTypes[0];
  let accepted: boolean = policy.acceptNew && !recorded;
  if (!accepted) {
    if (!policy.prompter.interactive) {
      if (recorded) {
        throw new HostUnknown(
          name,
          fingerprint,
          `a ${keyTypeLabel(recorded.keyType)} key is already recorded for it at ${recorded.file}:${recorded.line}, so --accept-new does not apply`,
          `confirm the new key from a terminal, or check it out of band and add it to ${policy.knownHosts.managedFile}`,
        );
      }
      throw new HostUnknown(name, fingerprint, "no terminal to confirm it");
    }
    accepted = await policy.prompter.confirm(
      `The authenticity of host '${name}' can't be established.\n` +
        `${keyTypeLabel(type)} key fingerprint is ${fingerprint}\n  ${describeKey(blob)}\n` +
        "Trust this key and remember it?",
    );
    if (!accepted) throw new HostUnknown(name, fingerprint, "not accepted");
  }
  const file = policy.knownHosts.add(host, port, blob);
  policy.warn(`permanently added ${name} (${keyTypeLabel(type)} ${fingerprint}) to ${file}`);
  const entry = policy.knownHosts.check(host, port, blob);
  const recordedAt = entry.status === "known" ? `${entry.entry.file}:${entry.entry.line}` : file;
  return { outcome: "accepted", fingerprint, recordedAt };
}
