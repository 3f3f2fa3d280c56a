/** `remote test`: what the remote is and which install routes for the serve would work there. */
import type { Client } from "ssh2";
import { runScript } from "../ssh/exec.ts";

export interface RemoteProbe {
  os: string;
  arch: string;
  /** Normalised platform (linux-x64, darwin-arm64…) or null when unsupported. */
  platform: string | null;
  user: string;
  home: string;
  loginShell: string;
  npm: string | null;
  homeWritable: boolean;
  routes: { upload: boolean; npm: boolean };
}

// Runs under plain sh whatever the login shell; core tools by absolute-ish names only.
const PROBE = `
PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:$PATH
printf 'os=%s\\n' "$(uname -s)"
printf 'arch=%s\\n' "$(uname -m)"
printf 'user=%s\\n' "$(id -un)"
printf 'home=%s\\n' "$HOME"
printf 'shell=%s\\n' "$SHELL"
printf 'npm=%s\\n' "$(command -v npm 2>/dev/null)"
if [ -w "$HOME" ]; then echo writable=1; else echo writable=0; fi
`;

export function normalisePlatform(os: string, arch: string): string | null {
  const o = os === "Linux" ? "linux" : os === "Darwin" ? "darwin" : null;
  const a = arch === "x86_64" || arch === "amd64" ? "x64" : arch === "aarch64" || arch === "arm64" ? "arm64" : null;
  return o && a ? `${o}-${a}` : null;
}

export async function probeRemote(client: Client): Promise<RemoteProbe> {
  const res = await runScript(client, PROBE, { timeoutMs: 30_000 });
  const kv = new Map<string, string>();
  for (const line of res.stdout.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0) kv.set(line.slice(0, i), line.slice(i + 1));
  }
  const os = kv.get("os") ?? "";
  const arch = kv.get("arch") ?? "";
  const platform = normalisePlatform(os, arch);
  const homeWritable = kv.get("writable") === "1";
  const npm = kv.get("npm") || null;
  return {
    os,
    arch,
    platform,
    user: kv.get("user") ?? "",
    home: kv.get("home") ?? "",
    loginShell: kv.get("shell") ?? "",
    npm,
    homeWritable,
    routes: { upload: platform !== null && homeWritable, npm: platform !== null && npm !== null },
  };
}
