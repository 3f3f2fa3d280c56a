// From `reasonix chat` arguments to a ready engine and chat state, shared by
// the full-screen chat and line mode.
import { loadConfig } from "../../core/config/load.ts";
import { createEngine } from "../../core/engine/index.ts";
import type { PermissionMode } from "../../core/engine/types.ts";
import { homePaths } from "../../core/home.ts";
import { SessionStore } from "../../core/sessions/store.ts";
import { warn } from "../output.ts";
import { InputHistory } from "./history.ts";
import { ChatState } from "./session.ts";
import { resolveLanguage, setLanguage } from "../../core/protocol/i18n/index.ts";

export interface ChatArgs {
  prompt?: string;
  model?: string;
  permissionMode?: PermissionMode;
  addDir?: string[];
  dir?: string;
  continue?: boolean;
  /** A session id; "" asks with a picker. */
  resume?: string;
}

export interface ChatSetup {
  st: ChatState;
  history: InputHistory;
  home: string;
  /** The session to resume was not given: show the picker first. */
  pickResume: boolean;
  /** Notes to show once the chat is up. */
  notes: string[];
}

export async function setupChat(args: ChatArgs): Promise<ChatSetup> {
  const paths = homePaths();
  let dir = args.dir ?? process.cwd();
  if (args.resume && !args.dir) dir = new SessionStore(paths.sessions).load(args.resume).meta.workspace;
  const cfg = loadConfig({ cwd: dir });
  for (const w of cfg.warnings) warn(w);
  // The interface language (`language`, /language): the chat's text from here on.
  setLanguage(resolveLanguage(cfg.values.language, process.env));
  const perms = (cfg.values.permissions ?? {}) as { mode?: PermissionMode };
  const mode = args.permissionMode ?? perms.mode ?? "ask";
  const engine = createEngine({ workspace: dir, config: cfg.values, configSources: cfg.sources, projectTrusted: cfg.trust.trusted, permissionMode: mode, extraWriteRoots: args.addDir });
  const st = new ChatState({ engine, config: cfg.values, mode, model: args.model });
  const notes: string[] = [];
  let session;
  if (args.resume) session = await engine.resumeSession(args.resume);
  else if (args.continue) {
    const latest = (await engine.listSessions())[0];
    if (latest) session = await engine.resumeSession(latest.id);
    else notes.push("no earlier session in this workspace; starting a new one");
  }
  const created = !session;
  session ??= await engine.createSession({ model: args.model });
  st.session = session;
  // --model on a continued session switches it, as /model does (core/host: mode and effort stay).
  if (!created && args.model) await st.switchModel(args.model);
  return { st, history: new InputHistory(paths.home, engine.workspace), home: paths.home, pickResume: args.resume === "", notes };
}
