// The chat's built-in slash commands typed in the prompt box
// (core/protocol/commands.ts): the web UI runs those it can — /model, /mode,
// /effort, /new, /clear, /help here, /rewind through the server's dispatcher
// (POST …/command, core/host/commands) — and says where the others live. A built-in
// command is never sent to the model. /goal, /compact and /mcp have their own
// runners (goal.ts, session-commands.ts). The model, mode and effort controls
// above and below the prompt box call the same functions.
import { api, sessionPath } from "./api.ts";
import { onBuiltinCommand } from "./send.ts";
import { changed, createSession, flashBanner, isBusy, loadModels, loadSessions, newSession, openSession, setBanner, state } from "./store.ts";
import { addSystem } from "./transcript.ts";
import { openMcpDialog } from "./components/mcp/mcp-state.ts";
import { BUILTIN_COMMANDS, builtinCommand, commandRunsOn, unavailableText } from "../../../protocol/commands.ts";
import { EFFORT_CHOICES, SELECTABLE_MODES } from "../../../protocol/modes.ts";

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

/** The built-in commands the web UI runs (core/protocol/commands.ts COMMAND_SURFACES): the rest say where they live. */
const HERE = BUILTIN_COMMANDS.filter((c) => commandRunsOn(c.name, "web"));

/** For the `/` menu, before the workspace's catalog (which lists /goal, /compact and /mcp). */
export const WEB_MENU = HERE.filter((c) => !OWN_RUNNER.has(c.name)).map((c) => ({ name: c.name, description: c.description, ...(c.args ? { argumentHint: c.args } : {}), kind: "builtin" }));

const say = (text: string, tone: "info" | "error" = "info") => addSystem(state.view, text, tone);

async function run(name: string, arg: string): Promise<void> {
  if (name === "help") {
    say(["Commands the web UI runs:", ...HERE.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ""} — ${c.description}`), "#note adds a line to the project instructions; other /commands are your custom commands and skills."].join("\n"));
  } else if (name === "new" || name === "clear") {
    newSession();
  } else if (name === "model") {
    if (!arg) return say(`model ${state.view.model ?? state.selectedModel ?? "(none)"}; /model NAME switches (${state.models.map((m) => m.name).join(", ")})`);
    if (!state.models.some((m) => m.name === arg)) return say(`/model: no provider named "${arg}" (${state.models.map((m) => m.name).join(", ")})`, "error");
    if (isBusy()) return say("/model: wait for the turn to end or cancel it first", "error");
    if (await pickModel(arg)) say(`model ${arg} from here on (same conversation)`);
  } else if (name === "mode") {
    if (!arg) return say(`mode ${state.mode ?? "as configured"}; /mode ${SELECTABLE_MODES.join("|")}`);
    if (!state.current) return say("/mode: open or start a session first", "error");
    if (await setMode(arg)) say(`mode ${arg} from here on`);
  } else if (name === "effort") {
    if (!arg) return say(`/effort ${EFFORT_CHOICES.join("|")}`);
    if (!state.current) return say("/effort: open or start a session first", "error");
    await setEffort(state.current, arg);
  } else if (state.current && commandRunsOn(name, "web")) {
    // The server's dispatcher runs it on the open session (core/host/commands), e.g. /rewind 3 both.
    const id = state.current;
    try {
      const r = await api<{ ok: boolean; text: string; changed?: string }>("POST", sessionPath(id, "command"), { name, arg });
      if (r.changed === "rewound") await openSession(id, false);
      say(r.text, r.ok ? "info" : "error");
    } catch (x) {
      say(`/${name}: ${(x as Error).message}`, "error");
    }
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
