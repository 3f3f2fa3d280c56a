// Test support: a throw-away $REASONIX_HOME and workspace whose default model
// ("scripted") is a scripted LLM server, as the CLI and ACP suites start them.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ScriptedHome {
  home: string;
  workspace: string;
  cleanup(): void;
}

export interface ScriptedHomeOptions {
  /** Temp dir name prefix. */
  prefix: string;
  /** The key stored in home/.env as SCRIPTED_KEY (mode 0600). */
  key: string;
  kind?: "openai" | "anthropic";
  /** TOML lines after the scripted provider's entry (more keys for it, more providers, other tables). */
  extraToml?: string;
}

export function makeScriptedHome(providerUrl: string, opts: ScriptedHomeOptions): ScriptedHome {
  const root = realpathSync(mkdtempSync(join(tmpdir(), opts.prefix)));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    join(home, "config.toml"),
    [
      'default_model = "scripted"',
      "[[providers]]",
      'name = "scripted"',
      `kind = "${opts.kind ?? "openai"}"`,
      `base_url = "${providerUrl}"`,
      'model = "scripted-model"',
      'api_key_env = "SCRIPTED_KEY"',
      opts.extraToml ?? "",
      "[sandbox]",
      // The bash sandbox is the sandbox suites' concern; keep these runs independent of bwrap.
      'bash = "off"',
      "",
    ].join("\n"),
  );
  writeFileSync(join(home, ".env"), `SCRIPTED_KEY=${opts.key}\n`, { mode: 0o600 });
  return { home, workspace, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
