// The chat's built-in slash commands typed in the prompt box
// (core/protocol/commands.ts): the web UI runs those it can — /new, /clear and
// /help here, /model, /mode, /effort, /rewind… through the server's dispatcher
// (POST …/command, core/host/commands), which alone decides what an argument
// means, as it does for the chat — and says where the others live. A built-in
// command is never sent to the model. /goal, /compact and /mcp have their own
// runners (goal.ts, session-commands.ts). The model, mode and effort controls
// above and below the prompt box call the same functions.
import { api, sessionPath } from "./api.ts";
import { onBuiltinCommand } from "./send.ts";
import { changed, createSession, flashBanner, isBusy, loadModels, loadSessions, newSession, openSession, setBanner, state } from "./store.ts";
import { addSystem } from "./transcript.ts";
import { openMcpDialog } from "./components/mcp/mcp-state.ts";
import { applyTheme } from "./components/settings/model.ts";
import { builtinCommand, builtinsOn, commandRunsOn, unavailableText } from "../../../protocol/commands.ts";
import { isPermissionMode } from "../../../protocol/modes.ts";

/** Continue the open session on provider entry `name` (new sessions use it too). */
export async function pickModel(name: string): Promise<boolean> {
  const m = state.models.find((x) => x.name === name);
  if (m && !m.hasKey) {
    // Ask for the key now rather than failing at the next prompt.
    state.keyFor = name;
    changed();
    return false;
  }
  try {
    if (state.current && !isBusy()) {
      await api("POST", sessionPath(state.current, "model"), { name });
      state.view.model = name;
    }
    await api("POST", "/api/model", { name });
    state.selectedModel = name;
    flashBanner(state.current ? `This session now uses ${name}; new sessions too.` : `New sessions use ${name}.`, 2500);
    void loadSessions();
    return true;
  } catch (x) {
    setBanner(`Could not switch model: ${(x as Error).message}`, "error");
    void loadModels();
    return false;
  } finally {
    changed();
  }
}

export async function setMode(mode: string): Promise<boolean> {
  // A mode picked on a new session's draft is a choice for that session: create it now.
  const id = state.current ?? (await createSession());
  if (!id) return false;
  try {
    await api("POST", sessionPath(id, "mode"), { mode });
    state.mode = mode;
    return true;
  } catch (x) {
    setBanner(`Could not switch the mode: ${(x as Error).message}`, "error");
    return false;
  } finally {
    changed();
  }
}

/** What this tab set per session (the engine keeps the real value). */
export const chosenEffort = new Map<string, string>();

export async function setEffort(id: string, effort: string): Promise<void> {
  try {
    const r = await api<{ effort: string }>("POST", sessionPath(id, "effort"), { effort });
    chosenEffort.set(id, r.effort);
    flashBanner(`Reasoning effort ${r.effort} from the next request on.`, 2500);
  } catch (x) {
    setBanner(`Could not set the reasoning effort: ${(x as Error).message}`, "error");
  }
  changed();
}

/** Answered by goal.ts / session-commands.ts (and listed by the workspace's catalog). */
const OWN_RUNNER = new Set(["goal", "compact", "mcp"]);

/**
 * The built-in commands the web UI runs (core/protocol/commands.ts COMMAND_SURFACES): the rest say where they live.
 * Listed as the server's dispatcher sees the open session: `/mode`'s hint names the modes it offers this session (builtinsOn).
 */
const here = () => builtinsOn("web", isPermissionMode(state.mode) ? state.mode : undefined);

/** For the `/` menu, before the workspace's catalog (which lists /goal, /compact and /mcp); read when the menu shows. */
export const webMenu = () => here().filter((c) => !OWN_RUNNER.has(c.name)).map((c) => ({ name: c.name, description: c.description, ...(c.args ? { argumentHint: c.args } : {}), kind: "builtin" }));

const say = (text: string, tone: "info" | "error" = "info") => addSystem(state.view, text, tone);

/** What the server's dispatcher answered (POST …/command, core/host/commands). */
interface Reply {
  ok: boolean;
  text: string;
  changed?: string;
  data?: Record<string, unknown>;
}

/** The controls follow what the dispatcher changed; returns what to say (effort: the banner the effort control shows). */
async function follow(id: string, r: Reply): Promise<string | undefined> {
  if (r.changed === "rewound") await openSession(id, false);
  if (r.changed === "mode") state.mode = String(r.data?.mode);
  if (r.changed === "theme") {
    // Saved in the user config by the server (the chat's /theme writes the same setting): shown here at once.
    const t = r.data?.theme as { mode: string; style: string } | undefined;
    if (t) applyTheme(t.mode, t.style);
    if (state.status) Object.assign(state.status, { theme: t?.mode, themeStyle: t?.style });
  }
  if (r.changed === "effort") {
    chosenEffort.set(id, String(r.data?.effort));
    flashBanner(`Reasoning effort ${r.data?.effort} from the next request on.`, 2500);
    return undefined;
  }
  if (r.changed === "model") {
    const name = String(r.data?.model);
    state.view.model = name;
    // New sessions too, when the server knows the name as a provider entry (as the model menu does).
    if (await api("POST", "/api/model", { name }).then(() => true, () => false)) state.selectedModel = name;
    void loadSessions();
  }
  return r.text;
}

async function run(name: string, arg: string): Promise<void> {
  const id = state.current;
  if (name === "help") {
    say(["Commands the web UI runs:", ...here().map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""} — ${c.description}`), "#note adds a line to the project instructions; other /commands are your custom commands and skills."].join("\n"));
  } else if (name === "new" || name === "clear") {
    newSession();
  } else if (name === "model" && arg && state.models.some((m) => m.name === arg && !m.hasKey)) {
    // A configured entry with no key: ask for it now, as the model menu does.
    await pickModel(arg);
  } else if (name === "model" && !id) {
    // No session yet: the model new sessions use (the server checks the name).
    if (!arg) return say(`model ${state.selectedModel ?? "(none)"}; /model NAME picks the one new sessions use`);
    if (await pickModel(arg)) say(`new sessions use ${arg}`);
  } else if (id && commandRunsOn(name, "web")) {
    // The server's dispatcher decides (core/host/commands), as for the chat: /model, /mode, /effort, /rewind 3 both…
    try {
      const r = await api<Reply>("POST", sessionPath(id, "command"), { name, arg });
      const text = await follow(id, r);
      if (text) say(text, r.ok ? "info" : "error");
    } catch (x) {
      say(`/${name}: ${(x as Error).message}`, "error");
    }
  } else if (!id && commandRunsOn(name, "web")) {
    say(`/${name}: open or start a session first`, "error");
  } else {
    // The same answer the server's dispatcher gives (core/host/commands).
    say(unavailableText(name, "web"));
  }
}

/** A built-in command typed in the prompt box: run or answered here (true), or not one for this module (false). */
async function typed(text: string): Promise<boolean> {
  const b = builtinCommand(text);
  // `/mcp browse [words]` and `/mcp import`: the dialogs (plain `/mcp` is the server's status listing).
  const mcp = b?.command.name === "mcp" ? /^(browse|import)(?:\s+([\s\S]*))?$/.exec(b.arg) : null;
  if (mcp) {
    openMcpDialog(mcp[1] as "browse" | "import", mcp[1] === "browse" ? (mcp[2] ?? "").trim() : "");
    return true;
  }
  if (!b || OWN_RUNNER.has(b.command.name)) return false;
  await run(b.command.name, b.arg);
  changed();
  return true;
}

onBuiltinCommand(typed);
