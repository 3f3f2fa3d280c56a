// Built-in slash commands of the chat. Each prints through the front end's
// `print`, so the full-screen chat and line mode share them.
// registry.ts only: the catalog's loaders (docs, skills, trust) load after the first frame (catalog.ts).
import { BUILTIN_PREFIX, type CommandRegistry } from "../../core/commands/registry.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Paint } from "./cards.ts";
import { cleanText } from "./sanitize.ts";
import { compact, type ChatState } from "./session.ts";
import { builtinCommandEntry, type BuiltinCommand } from "../../core/protocol/commands.ts";
import { runCommand, type CommandContext, type CommandResult } from "../../core/host/commands/index.ts";
import { SessionHost } from "../../core/host/session-host.ts";
import type { CommandEntry } from "../../core/commands/types.ts";
import { plural } from "../../core/plural.ts";
import { commandDescription, t } from "../../core/protocol/i18n/index.ts";
import { languageCommand, reasoningLanguageCommand, type LanguageReply } from "./language.ts";
import type { Theme } from "../../core/protocol/theme.ts";
import { applyTheme } from "./theme.ts";

export interface PickItem<T> {
  label: string;
  value: T;
  description?: string;
}

export interface SlashContext {
  st: ChatState;
  paint: Paint;
  print(lines: string[]): void;
  /** `what`: the items, plural ("models"), for the picker's "No matching …" line. */
  pick<T>(title: string, items: PickItem<T>[], what?: string): Promise<T | undefined>;
  clearScreen(): void;
  /** Ctrl+O / /verbose: reasoning and command output in full, or folded again (says which; absent: line mode shows everything). */
  toggleVerbose?(): void;
  /** This front end's Reasonix home (the user config /theme saves to). */
  home?: string;
  exit(): void;
  /** The live session changed (new, resumed, rewound): show its history or a header. */
  sessionChanged(kind: "new" | "resumed"): void;
  /** Start the browser UI in this process on this session; resolves with its URL. */
  startWeb?(): Promise<string>;
  /** The workspace's command catalog, once loaded. */
  commands?: CommandRegistry;
  /** Put the clipboard's picture into the composer as an `[image #N]` token (the full-screen chat only). */
  pasteImage?(): Promise<void>;
}

export interface SlashCommand {
  name: string;
  args?: string;
  description: string;
  run(ctx: SlashContext, arg: string): Promise<void> | void;
}

const busyGuard = (ctx: SlashContext): boolean => {
  if (!ctx.st.session.busy) return false;
  ctx.print([ctx.paint.yellow(t("chat.busy"))]);
  return true;
};

async function pickSession(ctx: SlashContext): Promise<string | undefined> {
  const list = (await ctx.st.engine.listSessions()).filter((s) => s.id !== ctx.st.session.id);
  if (list.length === 0) {
    ctx.print(["no earlier sessions in this workspace"]);
    return undefined;
  }
  return ctx.pick(
    "Resume which session?",
    list.slice(0, 50).map((s) => ({ label: s.title || "(untitled)", value: s.id, description: `${s.id} · ${plural(s.turns, "turn")} · ${s.updatedAt.slice(0, 16).replace("T", " ")}` })),
    "sessions",
  );
}

const builtin = (w: string) => (w === "builtin" ? "built-in" : w);

/** What a custom entry is and where it comes from, each said once: "skill, user", "built-in". */
function origin(e: CommandEntry): string {
  const words = [builtin(e.skill?.runAs === "subagent" ? "subagent" : e.kind), builtin(e.scope)];
  return [...new Set(words)].join(", ");
}

/** The open session as core/host/commands sees it (read only by the commands that need it). */
const hostContext = (ctx: SlashContext): CommandContext => ({
  surface: "chat",
  ...(ctx.home ? { home: ctx.home } : {}),
  get host() {
    // A bare session (no chat state around it): a host with the session's own mode and effort.
    return ctx.st.sessionHost ?? new SessionHost(ctx.st.engine, ctx.st.session);
  },
  newSession: async () => (await ctx.st.newSession()).id,
});

/**
 * Built-in `/name arg` through the shared dispatcher (core/host/commands),
 * its choices offered in a picker; undefined when the user backed out.
 */
async function viaHost(ctx: SlashContext, name: string, arg: string): Promise<CommandResult | undefined> {
  let r = await runCommand(hostContext(ctx), name, arg);
  // At most two choices (/rewind: the turn, then what to restore).
  for (let i = 0; i < 3 && r?.choose; i++) {
    if (r.choose.note) ctx.print([ctx.paint.yellow(cleanText(r.choose.note))]);
    const value = await ctx.pick(r.choose.title, r.choose.items, r.choose.what);
    if (value === undefined) return undefined;
    r = await runCommand(hostContext(ctx), name, value);
  }
  return r;
}

/** The result's lines, cleaned for the terminal and coloured by tone. */
function show(ctx: SlashContext, r: CommandResult | undefined, style?: (line: string) => string): void {
  if (!r || r.choose || r.lines.length === 0) return;
  const tone = r.tone === "error" ? ctx.paint.red : r.tone === "warn" ? ctx.paint.yellow : style ?? ((l: string) => l);
  ctx.print(r.lines.map((l) => tone(cleanText(l))));
}

const reply = (ctx: SlashContext, r: LanguageReply) => ctx.print([r.tone === "error" ? ctx.paint.red(r.text) : r.tone === "warn" ? ctx.paint.yellow(r.text) : r.text]);

const viaHostShown = (name: string) => async (ctx: SlashContext, arg: string) => show(ctx, await viaHost(ctx, name, arg));

export const slashCommands: SlashCommand[] = [
  {
    ...builtinCommandEntry("help"),
    run: async (ctx) => {
      const p = ctx.paint;
      const list = ((await runCommand(hostContext(ctx), "help"))?.data?.commands ?? []) as BuiltinCommand[];
      const more = (ctx.commands?.catalog().entries ?? []).filter((e) => e.source !== "chat");
      ctx.print([
        p.bold(t("help.commands")),
        ...list.map((c) => `  /${c.name}${c.args ? ` ${c.args}` : ""}  ${p.dim(commandDescription(c.name, c.description))}`),
        ...(more.length ? [p.bold(t("help.custom")), ...more.map((e) => cleanText(`  /${e.name}${e.argumentHint ? ` ${e.argumentHint}` : ""}  `) + p.dim(cleanText(`${e.description} (${origin(e)})`)))] : []),
        p.bold(t("help.keys")),
        ...["help.keys1", "help.keys2", "help.keys3", "help.keys4", "help.keys4b", "help.keys5"].map((k) => t(k)),
        t("help.keys6", { key: process.platform === "win32" ? "Alt+V" : "Ctrl+V" }),
      ]);
    },
  },
  {
    ...builtinCommandEntry("new"),
    run: async (ctx) => {
      const r = await viaHost(ctx, "new", "");
      if (r?.changed === "new") ctx.sessionChanged("new");
      else show(ctx, r);
    },
  },
  {
    ...builtinCommandEntry("clear"),
    run: async (ctx) => {
      if (busyGuard(ctx)) return;
      // The context goes (the session stays in /sessions): asked first, except in YOLO.
      if (ctx.st.mode !== "yolo") {
        const yes = await ctx.pick("Clear the context and start a new conversation? (this one stays in /sessions)", [
          { label: "Yes, clear it", value: true },
          { label: "No, keep it", value: false },
        ]);
        if (!yes) return ctx.print([ctx.paint.dim("kept the conversation")]);
      }
      const r = await viaHost(ctx, "clear", "");
      if (r?.changed !== "new") return show(ctx, r);
      ctx.clearScreen();
      ctx.sessionChanged("new");
    },
  },
  { ...builtinCommandEntry("cls"), run: (ctx) => ctx.clearScreen() },
  {
    ...builtinCommandEntry("model"),
    run: async (ctx, arg) => {
      const r = await viaHost(ctx, "model", arg);
      // /new goes on with the model chosen here.
      if (r?.changed === "model") ctx.st.opts.model = ctx.st.model;
      show(ctx, r);
    },
  },
  { ...builtinCommandEntry("mode"), run: viaHostShown("mode") },
  { ...builtinCommandEntry("effort"), run: viaHostShown("effort") },
  {
    ...builtinCommandEntry("sessions"),
    run: async (ctx) => {
      const list = await ctx.st.engine.listSessions();
      if (list.length === 0) return ctx.print(["no sessions yet"]);
      ctx.print(list.slice(0, 20).map((s) => `${s.id === ctx.st.session.id ? "*" : " "} ${s.id}  ${ctx.paint.dim(plural(s.turns, "turn"))}  ${cleanText(s.title)}`));
    },
  },
  {
    ...builtinCommandEntry("resume"),
    run: async (ctx, arg) => {
      if (busyGuard(ctx)) return;
      const id = arg || (await pickSession(ctx));
      if (!id) return;
      try {
        await ctx.st.resume(id);
      } catch (e) {
        return ctx.print([ctx.paint.red(errorMessage(e))]);
      }
      ctx.sessionChanged("resumed");
    },
  },
  {
    ...builtinCommandEntry("rewind"),
    run: async (ctx, arg) => show(ctx, await viaHost(ctx, "rewind", arg), (l) => (l.startsWith("  ") ? ctx.paint.dim(l) : l)),
  },
  {
    ...builtinCommandEntry("compact"),
    run: async (ctx) => {
      if (!ctx.st.session.busy) ctx.print([ctx.paint.dim("compacting: the model summarizes the earlier conversation…")]);
      const r = await viaHost(ctx, "compact", "");
      // Compacted: the engine's compaction event has been shown already.
      if (r?.changed !== "compacted") show(ctx, r);
    },
  },
  {
    ...builtinCommandEntry("mcp"),
    run: async (ctx) => {
      const r = await viaHost(ctx, "mcp", "");
      // Names and errors come from servers and config files: cleaned for the terminal.
      if (r) ctx.print(r.lines.map((l) => (/^\S/.test(l) ? ctx.paint.bold(cleanText(l)) : cleanText(l))));
    },
  },
  {
    ...builtinCommandEntry("context"),
    run: (ctx) => {
      const w = ctx.st.contextWindow();
      const used = ctx.st.stats.lastInput;
      ctx.print([w ? `context: ${compact(used)} of ${compact(w)} tokens (${ctx.st.contextPercent()}%)` : `context: ${compact(used)} tokens in the last request (set context_window on the provider entry to see a percentage)`]);
    },
  },
  {
    ...builtinCommandEntry("cost"),
    run: (ctx) => {
      const { total, cost, cacheHitPercent } = ctx.st.stats;
      ctx.print([
        `tokens: ${total.inputTokens} in (${cacheHitPercent}% from cache), ${total.outputTokens} out${total.reasoningTokens ? `, ${total.reasoningTokens} reasoning` : ""}`,
        cost ? `cost: ${cost.total.toFixed(4)} ${cost.currency}` : "cost: unknown (set prices on the provider entry)",
      ]);
    },
  },
  {
    ...builtinCommandEntry("todo"),
    run: (ctx) => {
      const t = ctx.st.todos;
      if (t.length === 0) return ctx.print(["no todos"]);
      ctx.print(t.map((i) => `${i.status === "completed" ? "[x]" : i.status === "in_progress" ? "[>]" : "[ ]"} ${i.content}`));
    },
  },
  { ...builtinCommandEntry("jobs"), run: viaHostShown("jobs") },
  { ...builtinCommandEntry("memory"), run: viaHostShown("memory") },
  { ...builtinCommandEntry("queue"), run: viaHostShown("queue") },
  {
    ...builtinCommandEntry("goal"),
    run: async (ctx, arg) => {
      const r = await viaHost(ctx, "goal", arg);
      show(ctx, r);
      // The loop drives turns in the background; its goal events show progress.
      r?.loop?.catch((e) => ctx.print([ctx.paint.red(`goal: ${errorMessage(e)}`)]));
    },
  },
  {
    ...builtinCommandEntry("web"),
    run: async (ctx) => {
      if (!ctx.startWeb) return ctx.print(["the browser UI cannot be started from here"]);
      try {
        ctx.print([`browser UI: ${await ctx.startWeb()}`]);
      } catch (e) {
        ctx.print([ctx.paint.red(`web: ${errorMessage(e)}`)]);
      }
    },
  },
  {
    ...builtinCommandEntry("theme"),
    run: async (ctx, arg) => {
      const r = await viaHost(ctx, "theme", arg);
      const t = r?.changed === "theme" ? (r.data?.theme as Theme | undefined) : undefined;
      if (t) applyTheme(t);
      show(ctx, r, ctx.paint.cyan);
    },
  },
  {
    ...builtinCommandEntry("verbose"),
    run: (ctx) => {
      if (!ctx.toggleVerbose) return ctx.print(["/verbose is for the full-screen chat (line mode prints one line a step)"]);
      ctx.toggleVerbose();
    },
  },
  {
    ...builtinCommandEntry("sandbox"),
    run: (ctx) => {
      const sb = (ctx.st.opts.config.sandbox ?? {}) as Record<string, unknown>;
      ctx.print([`bash sandbox: ${sb.bash === "off" ? "off ([sandbox] bash = \"off\")" : "enforced"} · network: ${sb.network ? "allowed" : "blocked"}`, "details: reasonix sandbox --help"]);
    },
  },
  {
    ...builtinCommandEntry("trust"),
    run: async (ctx) => {
      const { trustReport } = await import("../../core/trust/report.ts");
      const { trustLines } = await import("../../core/trust/approve.ts");
      const r = trustReport(ctx.st.session.workspace);
      const p = ctx.paint;
      if (r.inputs.length === 0) return ctx.print([`${r.workspace}: ships no project files (reasonix.toml, .mcp.json, .reasonix/): nothing to trust`]);
      ctx.print([
        r.trusted ? p.green(`trusted since ${r.trustedAt ?? "?"}: every project file is as approved`) : p.yellow("not trusted: project files only tighten settings until approved"),
        // File names come from the repository: cleaned before they reach the terminal.
        // Repository text is escaped by trustLines (core/trust/describe.ts) before it reaches the terminal.
        ...trustLines(r, (part, t) => (part === "status" ? (t === "approved" ? p.green(t) : p.yellow(t)) : part === "can" ? p.dim(t) : part === "problem" ? p.yellow(t) : t)),
        ...(r.trusted ? [] : [p.dim("review and approve with: reasonix trust (the session keeps its current settings)")]),
      ]);
    },
  },
  { ...builtinCommandEntry("language"), run: (ctx, arg) => reply(ctx, languageCommand(ctx.st.opts.config, arg)) },
  { ...builtinCommandEntry("reasoning-language"), run: (ctx, arg) => reply(ctx, reasoningLanguageCommand(ctx.st.opts.config, arg)) },
  {
    ...builtinCommandEntry("paste-image"),
    run: (ctx) => (ctx.pasteImage ? ctx.pasteImage() : ctx.print([ctx.paint.yellow("line mode cannot paste a picture: write @name.png in the message to attach a file")])),
  },
  {
    ...builtinCommandEntry("exit"),
    run: (ctx) => ctx.exit(),
  },
];

/** Run one of the chat's own `/name args`; false when it is not one. */
export async function runSlash(ctx: SlashContext, text: string): Promise<boolean> {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (!m) return false;
  const name = m[1]!.startsWith(BUILTIN_PREFIX) ? m[1]!.slice(BUILTIN_PREFIX.length) : m[1]!;
  const cmd = slashCommands.find((c) => c.name === name || (name === "quit" && c.name === "exit"));
  if (!cmd) return false;
  await cmd.run(ctx, m[2]!.trim());
  return true;
}

/**
 * What a typed `/…` is: one of the chat's commands ("local"), something the
 * engine expands (custom command, skill, /docs: "engine", sent as typed),
 * a command name nobody knows ("unknown": a typo, not sent), or no command at all ("text").
 */
export function routeSlash(reg: CommandRegistry | undefined, text: string): "local" | "engine" | "unknown" | "text" {
  const m = /^\/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s|$)/.exec(text.trim());
  if (!m) return "text"; // e.g. a path such as /usr/bin/env: plain text for the model
  const name = m[1]!;
  const entry = reg?.resolve(name);
  if (entry) return entry.source === "chat" ? "local" : "engine";
  if (reg?.blocked(name)) return "engine"; // the engine says why it may not run
  if (name.startsWith("mcp__")) return "engine"; // an MCP prompt of a server still starting: the engine waits for it
  const base = name.startsWith(BUILTIN_PREFIX) ? name.slice(BUILTIN_PREFIX.length) : name;
  return slashCommands.some((c) => c.name === base) || base === "quit" ? "local" : "unknown";
}
