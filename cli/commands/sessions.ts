import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, printJson } from "../output.ts";
import { REWIND_MODES, type RewindMode } from "../../core/protocol/modes.ts";
import { plural } from "../../core/plural.ts";

const store = async () => {
  const { SessionStore } = await import("../../core/sessions/store.ts");
  const { homePaths } = await import("../../core/home.ts");
  return new SessionStore(homePaths().sessions);
};

const list = defineCommand<{ json: boolean; here: boolean; all: boolean; dir?: string }>({
  command: "list",
  describe: "List sessions, newest first",
  builder: (y) =>
    y
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" })
      .option("here", { type: "boolean", default: false, describe: "Only sessions of the current workspace" })
      .option("all", { type: "boolean", default: false, describe: "Also sessions never prompted (left out otherwise: nothing to resume)" })
      .option("dir", { type: "string", describe: "Only sessions of this workspace" }),
  run: async (args) => {
    const { realpathSync } = await import("node:fs");
    const { resolve } = await import("node:path");
    let items = (await store()).list({ all: args.all });
    const dir = args.dir ?? (args.here ? process.cwd() : undefined);
    if (dir) {
      let ws = resolve(dir);
      try { ws = realpathSync(ws); } catch {}
      items = items.filter((s) => s.workspace === ws);
    }
    if (args.json) return printJson(items);
    if (items.length === 0) {
      process.stderr.write("no sessions\n");
      return;
    }
    for (const s of items) {
      process.stdout.write(`${bold(s.id)}  ${dim(s.updatedAt.replace("T", " ").slice(0, 19))}  ${plural(s.turns, "turn")}  ${dim(s.model)}\n`);
      const fork = s.forkedFrom ? dim(`  forked from ${s.forkedFrom.id}${s.forkedFrom.turn ? ` before turn ${s.forkedFrom.turn}` : ""}`) : "";
      process.stdout.write(`  ${s.title || dim("(no prompt yet)")}  ${dim(s.workspace)}${fork}\n`);
    }
  },
});

const show = defineCommand<{ id: string; json: boolean; cost: boolean }>({
  command: "show <id>",
  describe: "Show a session's conversation, tool calls and usage",
  builder: (y) =>
    y
      .positional("id", { type: "string", demandOption: true })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" })
      .option("cost", { type: "boolean", default: false, describe: "Only the spend: per turn and for the session, with cache savings" }),
  run: async (args) => {
    const st = (await store()).load(args.id);
    if (args.cost) {
      const { costReport, formatCostReport } = await import("../../core/sessions/cost.ts");
      const report = costReport(st.history);
      if (args.json) return printJson({ id: st.meta.id, model: st.model, ...report });
      process.stdout.write(formatCostReport(report));
      return;
    }
    if (args.json) {
      return printJson({ id: st.meta.id, workspace: st.meta.workspace, model: st.model, createdAt: st.meta.createdAt, turns: st.turns.map((t) => ({ turn: t.turn, prompt: t.prompt })), usage: st.total, history: st.history });
    }
    process.stdout.write(`${bold(`session ${st.meta.id}`)}  ${dim(`${st.model} · ${st.meta.workspace} · created ${st.meta.createdAt}`)}\n`);
    const { sessionText } = await import("./session-text.ts");
    process.stdout.write(sessionText(st.history));
    const u = st.total;
    process.stdout.write(dim(`\ntokens: ${u.inputTokens} in (${u.cacheHitTokens} cached), ${u.outputTokens} out\n`));
  },
});

const del = defineCommand<{ ids: string[]; json: boolean }>({
  command: "delete <ids..>",
  describe: "Delete sessions (log and checkpoints)",
  builder: (y) => y.positional("ids", { type: "string", array: true, demandOption: true }).option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const s = await store();
    for (const id of args.ids) s.delete(id);
    if (args.json) return printJson({ deleted: args.ids });
    for (const id of args.ids) process.stderr.write(`deleted ${id}\n`);
  },
});

const rewind = defineCommand<{ id: string; turn: number; mode: string; json: boolean }>({
  command: "rewind <id> <turn>",
  describe: "Go back to just before a turn: restore files, the conversation, or both",
  builder: (y) =>
    y
      .positional("id", { type: "string", demandOption: true })
      .positional("turn", { type: "number", demandOption: true })
      .option("mode", { type: "string", choices: [...REWIND_MODES], default: "both", describe: "What to restore" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { rewindSession } = await import("../../core/sessions/rewind.ts");
    const s = await store();
    const file = s.open(args.id);
    try {
      const r = rewindSession(file, Number(args.turn), args.mode as RewindMode);
      if (args.json) return printJson(r);
      for (const f of r.files) process.stdout.write(`${f.action} ${f.path}\n`);
      process.stderr.write(`rewound session ${args.id} to before turn ${r.turn} (${r.mode})\n`);
    } finally {
      file.close();
    }
  },
});

const fork = defineCommand<{ id: string; turn?: number; json: boolean }>({
  command: "fork <id>",
  describe: "Start a new session from a session's conversation (just before --turn N, else all of it); the original is untouched",
  builder: (y) =>
    y
      .positional("id", { type: "string", demandOption: true })
      .option("turn", { type: "number", describe: "Cut just before this turn (its prompt is not copied)" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { forkSession } = await import("../../core/sessions/fork.ts");
    const { shownTitle } = await import("../../core/sessions/store.ts");
    if (args.turn !== undefined && (!Number.isInteger(args.turn) || args.turn < 1)) {
      const { UsageError } = await import("../../core/errors.ts");
      throw new UsageError(`--turn must be a turn number (1 or more), got ${args.turn}`);
    }
    const file = forkSession(await store(), args.id, { turn: args.turn });
    const st = file.state();
    file.close();
    const out = { id: file.id, from: args.id, ...(args.turn !== undefined ? { turn: args.turn } : {}), title: shownTitle(st), turns: st.turns.length };
    if (args.json) return printJson(out);
    process.stdout.write(`${file.id}\n`);
    process.stderr.write(`forked ${args.id}${args.turn !== undefined ? ` before turn ${args.turn}` : ""} into ${file.id} (${plural(out.turns, "turn")}); files on disk are unchanged\n`);
    process.stderr.write(dim(`continue it with: reasonix chat --resume ${file.id}\n`));
  },
});

const rename = defineCommand<{ id: string; title: string; json: boolean }>({
  command: "rename <id> <title>",
  describe: 'Set a session\'s title ("" goes back to its first prompt)',
  builder: (y) =>
    y
      .positional("id", { type: "string", demandOption: true })
      .positional("title", { type: "string", demandOption: true })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { setSessionTitle } = await import("../../core/sessions/title.ts");
    const title = setSessionTitle(await store(), args.id, String(args.title));
    if (args.json) return printJson({ id: args.id, title });
    process.stderr.write(`session ${args.id} is now titled "${title}"\n`);
  },
});

export default defineGroup("sessions", "List, show, rename, fork, rewind and delete saved sessions", [list, show, rename, fork, rewind, del]);
