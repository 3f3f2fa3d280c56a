// "Asked once": a front end that offered to trust a workspace's files and was
// told no does not ask again until the files change. Kept per workspace as
// the digests that were shown, in $REASONIX_HOME/state/trust-asked.json (0600).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { homePaths } from "../home.ts";
import type { InputState } from "./index.ts";

const file = (home: string) => join(homePaths(home).home, "state", "trust-asked.json");
export const fingerprint = (inputs: Pick<InputState, "rel" | "sha256">[]): string => inputs.map((i) => `${i.rel}=${i.sha256}`).join("\n");

function read(home: string): Record<string, string> {
  try {
    const v = JSON.parse(readFileSync(file(home), "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function alreadyDeclined(home: string, workspace: string, inputs: Pick<InputState, "rel" | "sha256">[]): boolean {
  return read(home)[workspace] === fingerprint(inputs);
}

export function rememberDeclined(home: string, workspace: string, inputs: Pick<InputState, "rel" | "sha256">[]): void {
  const all = read(home);
  all[workspace] = fingerprint(inputs);
  writeFileAtomic(file(home), `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}
