/**
 * A server found in another agent's file, as a `reasonix mcp add` entry:
 * variable syntaxes become Reasonix's (`${env:VAR}` -> `${VAR}`,
 * `${userHome}` -> `${HOME}`, `${workspaceFolder}` -> `.`: stdio servers
 * start in the workspace), and secrets written inline (an environment
 * variable or header whose name says key/token/secret/password, an
 * Authorization header) move to $REASONIX_HOME/.env as
 * `MCP_<NAME>_<FIELD>`, referenced as `${MCP_<NAME>_<FIELD>}`.
 */
import { cleanName } from "../config.ts";
import type { AddServer } from "../edit.ts";
import type { FoundServer } from "./agents.ts";

export interface ImportPlan {
  server: AddServer;
  /** .env variable -> value. */
  secrets: Record<string, string>;
  /** Set when it cannot be imported, with why. */
  unsupported?: string;
}

const SECRET_NAME = /(key|token|secret|passw(or)?d|credential|auth|pat$|cookie|session)/i;

export const looksSecret = (name: string, value: string) => !value.includes("${") && value.trim() !== "" && SECRET_NAME.test(name);

function vars(text: string): { text: string; input?: string } {
  const input = /\$\{input:([^}]+)\}/.exec(text)?.[1];
  const out = text
    .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "${$1}")
    .replace(/\$\{userHome\}/g, "${HOME}")
    .replace(/\$\{workspaceFolder\}/g, ".");
  return { text: out, input };
}

export function planImport(f: FoundServer, name = cleanName(f.name)): ImportPlan {
  const secrets: Record<string, string> = {};
  let input: string | undefined;
  const v = (t: string) => {
    const r = vars(t);
    input ??= r.input;
    return r.text;
  };
  const kv = (m: Record<string, string>) => {
    const out: Record<string, string> = {};
    for (const [k, raw] of Object.entries(m)) {
      const val = v(raw);
      if (looksSecret(k, val)) {
        const ref = `MCP_${name}_${k}`.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
        secrets[ref] = val;
        out[k] = `\${${ref}}`;
      } else out[k] = val;
    }
    return out;
  };
  const cwd = f.cwd ? v(f.cwd) : undefined;
  const server: AddServer = {
    name,
    type: f.type,
    command: f.command ? v(f.command) : undefined,
    args: f.args.map(v),
    env: kv(f.env),
    url: f.url ? v(f.url) : undefined,
    headers: kv(f.headers),
    ...(cwd && cwd !== "." ? { cwd } : {}),
  };
  const unsupported =
    f.unsupported ??
    (input ? `it asks VS Code for \${input:${input}}; add it by hand with the value (reasonix mcp add)` : undefined);
  return { server, secrets, ...(unsupported ? { unsupported } : {}) };
}

/** What to show for it: the command line or the URL. */
export const targetOfFound = (f: FoundServer) => (f.type === "stdio" ? [f.command ?? "", ...f.args].join(" ") : f.url ?? "");
