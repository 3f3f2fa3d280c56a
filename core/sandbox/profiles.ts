// Loads the embedded sandbox profiles (sandbox-profiles/) and fills in their
// parameters. The profile files are the policy; nothing here adds rules.
import { parse } from "smol-toml";
import { sandboxProfileAssets } from "../assets/index.ts";
import { ReasonixError } from "../errors.ts";

export interface EmbeddedProfile {
  /** Short name used by `reasonix sandbox profiles --show NAME`. */
  name: string;
  /** Path inside sandbox-profiles/. */
  file: string;
  text: string;
}

const PROFILE_FILES: Record<string, string> = {
  "linux-bwrap": "linux/bwrap.toml",
  "macos-seatbelt": "macos/bash.sb",
};

export function listProfiles(): EmbeddedProfile[] {
  return Object.entries(PROFILE_FILES)
    .filter(([, file]) => sandboxProfileAssets.files[file] !== undefined)
    .map(([name, file]) => ({ name, file, text: sandboxProfileAssets.files[file]! }));
}

export function getProfile(name: string): EmbeddedProfile {
  const found = listProfiles().find((p) => p.name === name || p.file === name);
  if (!found) {
    throw new ReasonixError("sandbox-profile", `no embedded sandbox profile named "${name}"`, {
      hint: `known: ${listProfiles().map((p) => p.name).join(", ")}`,
    });
  }
  return found;
}

// ---------- Linux (bubblewrap) ----------

export interface BwrapProfile {
  process: string[];
  as_root: string[];
  network_off: string[];
  network_on: string[];
  env: Record<string, string>;
  mount: { args: string[]; each?: string; why?: string }[];
}

export interface BwrapParams {
  scalars: Record<string, string>;
  lists: Record<string, readonly string[]>;
  network: boolean;
  asRoot: boolean;
}

export function loadBwrapProfile(text = getProfile("linux-bwrap").text): BwrapProfile {
  const data = parse(text) as Record<string, unknown>;
  const strs = (k: string): string[] => {
    const v = data[k] ?? [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new ReasonixError("sandbox-profile", `linux/bwrap.toml: ${k} must be a list of strings`);
    return v as string[];
  };
  const mount = (data.mount ?? []) as BwrapProfile["mount"];
  for (const [i, m] of mount.entries()) {
    if (!Array.isArray(m.args) || m.args.some((a) => typeof a !== "string")) {
      throw new ReasonixError("sandbox-profile", `linux/bwrap.toml: mount[${i}].args must be a list of strings`);
    }
  }
  return {
    process: strs("process"),
    as_root: strs("as_root"),
    network_off: strs("network_off"),
    network_on: strs("network_on"),
    env: (data.env ?? {}) as Record<string, string>,
    mount,
  };
}

/** Substitute `${name}` inside one argv entry; the result stays one entry. */
function fill(arg: string, vars: Record<string, string>): string {
  return arg.replace(/\$\{([a-z_]+)\}/g, (_m, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new ReasonixError("sandbox-profile", `linux/bwrap.toml uses \${${name}}, which the code does not supply`);
    return v;
  });
}

/** The bwrap argv (without the leading "bwrap" and the command). */
export function renderBwrapArgs(profile: BwrapProfile, params: BwrapParams): string[] {
  const out = [...profile.process];
  if (params.asRoot) out.push(...profile.as_root);
  out.push(...(params.network ? profile.network_on : profile.network_off).map((a) => fill(a, params.scalars)));
  for (const m of profile.mount) {
    if (m.each === undefined) {
      out.push(...m.args.map((a) => fill(a, params.scalars)));
      continue;
    }
    const items = params.lists[m.each];
    if (items === undefined) throw new ReasonixError("sandbox-profile", `linux/bwrap.toml iterates over "${m.each}", which the code does not supply`);
    for (const path of items) out.push(...m.args.map((a) => fill(a, { ...params.scalars, path })));
  }
  return out;
}

// ---------- macOS (Seatbelt) ----------

export interface SeatbeltParams {
  scalars: Record<string, string>;
  lists: Record<string, readonly string[]>;
}

/**
 * Expand the `;; @each LIST` lines of a .sb template and return the profile
 * text plus the `-D NAME=value` definitions. Only indices are written into
 * the text; the values travel as parameters.
 */
export function renderSeatbelt(template: string, params: SeatbeltParams): { profile: string; defines: [string, string][] } {
  const defines: [string, string][] = Object.entries(params.scalars);
  const used = new Set<string>();
  const lines: string[] = [];
  for (const line of template.split("\n")) {
    const m = /^(.*?)\s*;; @each ([A-Z_]+)\s*$/.exec(line);
    if (!m) {
      lines.push(line);
      continue;
    }
    const list = m[2]!;
    const items = params.lists[list];
    if (items === undefined) throw new ReasonixError("sandbox-profile", `macos/bash.sb iterates over ${list}, which the code does not supply`);
    used.add(list);
    items.forEach((_v, i) => lines.push(m[1]!.replaceAll("@", String(i))));
  }
  for (const list of used) params.lists[list]!.forEach((v, i) => defines.push([`${list}_${i}`, v]));
  return { profile: lines.join("\n"), defines };
}
