import { createHash } from "node:crypto";
import { blobKeyType } from "./known-hosts.ts";

/** `SHA256:…` exactly as `ssh-keygen -lf` prints it (unpadded base64). */
export function sha256Fingerprint(blob: Buffer): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

function readString(buf: Buffer, off: number): [Buffer, number] {
  const n = buf.readUInt32BE(off);
  return [buf.subarray(off + 4, off + 4 + n), off + 4 + n];
}

/** Key size in bits as ssh-keygen reports it. */
export function keyBits(blob: Buffer): number {
  const type = blobKeyType(blob) ?? "";
  if (type === "ssh-ed25519" || type === "sk-ssh-ed25519@openssh.com") return 256;
  if (type.startsWith("ecdsa-sha2-nistp")) return Number(type.slice("ecdsa-sha2-nistp".length));
  if (type === "ssh-rsa" || type === "ssh-dss") {
    try {
      let off = 4 + blob.readUInt32BE(0);
      let field: Buffer;
      [field, off] = readString(blob, off); // rsa: e, dss: p
      if (type === "ssh-rsa") [field, off] = readString(blob, off); // n
      let i = 0;
      while (i < field.length && field[i] === 0) i++;
      if (i === field.length) return 0;
      return (field.length - i - 1) * 8 + (32 - Math.clz32(field[i]!));
    } catch {
      return 0;
    }
  }
  return 0;
}

/** The name ssh-keygen puts in parentheses: ED25519, RSA, ECDSA, DSA. */
export function keyTypeLabel(type: string): string {
  if (type.includes("ed25519")) return "ED25519";
  if (type.startsWith("ecdsa")) return "ECDSA";
  if (type === "ssh-rsa") return "RSA";
  if (type === "ssh-dss") return "DSA";
  return type.toUpperCase();
}

/** One line like `ssh-keygen -lf` prints: `256 SHA256:… comment (ED25519)`. */
export function describeKey(blob: Buffer, comment = "no comment"): string {
  return `${keyBits(blob)} ${sha256Fingerprint(blob)} ${comment} (${keyTypeLabel(blobKeyType(blob) ?? "?")})`;
}
