// Line mode for TERM=dumb, --line-mode and terminals we cannot drive: plain
// lines in, plain lines out, no escape sequences and no cursor movement. Same
// engine, slash commands, approvals, queue and history as the full-screen chat.
import { createInterface } from "node:readline";
import { foldTranscript } from "../../core/protocol/fold.ts";
import { queueText } from "../../core/protocol/queue.ts";
import type { TurnEndReason } from "../../core/protocol/turn.ts";
import { LineEvents } from "./line-events.ts";
import { answerFromLine } from "./question.ts";
import { errorMessage } from "../../core/errors.ts";
import { decisionForLine, plainPaint } from "./cards.ts";
import { cleanText, scrub } from "./sanitize.ts";
import type { ChatSetup } from "./setup.ts";
import { routeSlash, runSlash, type PickItem, type SlashContext } from "./slash.ts";
import { statusFields } from "./session.ts";
import { noteFromChat } from "./note.ts";
import { shellCommand, shellFromChat } from "./shell-line.ts";
import { steerNow } from "./steer.ts";
import { goalPromptLine, isGoalPrompt } from "../../core/goal/prompts.ts";
import { countHost, UsageCounters } from "../../core/telemetry/counters.ts";

export async function runLineMode(setup: ChatSetup, first?: string, startWeb?: SlashContext["startWeb"]): Promise<number> {
  const { st, history } = setup;
  const out = (s: string) => process.stdout.write(s);
  const println = (s = "") => out(`${s}\n`);
  const width = () => Math.max(40, (process.stdout.columns || 80) - 1);
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines: string[] = [];
  let waiter: ((l: string | undefined) => void) | undefined;
  let closed = false;
  rl.on("line", (l) => {
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(l);
    } else lines.push(l);
  });
  rl.on("close", () => {
    closed = true;
    waiter?.(undefined);
  });
  const nextLine = (): Promise<string | undefined> => (lines.length ? Promise.resolve(lines.shift()) : closed ? Promise.resolve(undefined) : new Promise((r) => (waiter = r)));

  const denyUnanswerable = (callId: string) => {
    try {
      st.session.approve(callId, "deny");
    } catch {
      // Already answered or gone.
    }
  };
  const dismissUnanswerable = (callId: string) => {
    try {
      st.sessionHost!.answerQuestion(callId, { dismissed: true });
    } catch {
      // Already answered or gone.
    }
  };
  const ev = new LineEvents({
    out,
    width,
    unanswerable: () => closed && !quit,
    deny: denyUnanswerable,
    dismiss: dismissUnanswerable,
    status: () => statusFields(st, undefined).join(" | "),
  });
  const breakLine = () => ev.breakLine();

  const pick = async <T,>(title: string, items: PickItem<T>[]): Promise<T | undefined> => {
    println(title);
    items.forEach((it, i) => println(`  ${i + 1}) ${it.label}${it.description ? `  (${it.description})` : ""}`));
    out("number (empty cancels): ");
    const l = await nextLine();
    const n = Number(l?.trim());
    return Number.isInteger(n) && n >= 1 && n <= items.length ? items[n - 1]!.value : undefined;
  };

  let quit = false;
  const ctx: SlashContext = {
    st,
    paint: plainPaint,
    print: (ls) => {
      breakLine();
      for (const l of ls) println(cleanText(l));
    },
    pick,
    clearScreen: () => {},
    exit: () => {
      quit = true;
    },
    sessionChanged: (kind) => println(`${kind === "new" ? "new conversation" : "resumed"} ${st.session.id}`),
    startWeb,
  };

  let sigints = 0;
  const onSigint = () => {
    if (st.session.busy) st.session.cancel();
    if (++sigints >= 2) {
      quit = true;
      closed = true;
      waiter?.(undefined);
    } else println("\n(press Ctrl-C again to exit)");
    setTimeout(() => (sigints = 0), 1500).unref();
  };
  process.on("SIGINT", onSigint);

  // Usage counters (docs/telemetry.md; the one-time question is the full-screen chat's): buckets only.
  const counters = new UsageCounters();
  if (st.sessionHost) countHost(counters, st.sessionHost);
  await st.attach(st.session, (e) => {
    counters.observe(e);
    ev.onEvent(e);
  });
  try {
    ctx.commands = (await import("./catalog.ts")).chatCommands(st.engine.workspace, setup.home, st.opts.config, st.engine.commandSources());
  } catch (e) {
    println(`custom commands and skills are not available: ${errorMessage(e)}`);
  }
  println(`reasonix chat (line mode) | ${st.model} | ${st.session.workspace}`);
  println(`session ${st.session.id} | /help for commands | Ctrl-C twice exits`);
  if (process.stdin.isTTY) println("while a turn runs: a line steers it; /queue <message> waits for its end");
  for (const n of setup.notes) println(n);
  // A resumed conversation: its prompts and answers, plainly.
  for (const b of foldTranscript(scrub(st.session.history())).blocks) {
    if (b.kind === "prompt") println(`> ${isGoalPrompt(b.text) ? goalPromptLine(b.text) : b.text}`);
    else if (b.kind === "answer" && b.text.trim()) println(b.text.trimEnd());
    else if (b.kind === "tool" && b.output !== undefined) println(`  ${b.status === "ok" ? "ok" : "failed"}: ${b.status === "ok" ? (b.receipt ?? b.name) : b.output.split("\n")[0]}`);
  }
  if (setup.pickResume) await runSlash(ctx, "/resume");

  let turn: Promise<unknown> | undefined;
  const host = st.sessionHost!;
  const send = (text: string): Promise<TurnEndReason> => {
    const t = host.submit(text);
    const mine: Promise<unknown> = t
      .catch((e) => println(`error: ${errorMessage(e)}`))
      .finally(() => {
        // The host may have started the next queued prompt already.
        if (turn !== mine) return;
        turn = undefined;
        if (!host.pumpQueue() && !quit) out("> ");
      });
    turn = mine;
    return t;
  };
  // The host's queue (on disk) sends its prompts through here.
  host.queueRunner = (q) => {
    println(`> ${q}`);
    return send(q);
  };

  const enqueue = (text: string) => {
    try {
      host.enqueue(text);
      println(`(queued: ${text})`);
    } catch (e) {
      println(`error: ${errorMessage(e)}`);
    }
  };

  if (host.queue.paused && host.queue.length) println(`queue paused (${host.queue.length}) | /queue list shows it, /queue resume sends it`);
  if (first) {
    println(`> ${first}`);
    history.add(first);
    send(first);
  } else out("> ");
  while (!quit) {
    const l = await nextLine();
    if (l === undefined) break;
    const text = l.trim();
    const pending = ev.approvals[0];
    if (pending) {
      const d = decisionForLine(text);
      if (d && (pending.persistTo || (d !== "persist" && d !== "persist_project"))) {
        try {
          st.session.approve(pending.callId, d);
        } catch (e) {
          println(`error: ${errorMessage(e)}`);
        }
        continue;
      }
    }
    const asked = pending ? undefined : ev.questions[0];
    if (asked && text) {
      try {
        st.sessionHost!.answerQuestion(asked.callId, answerFromLine(asked, text));
      } catch (e) {
        println(`error: ${errorMessage(e)}`);
      }
      continue;
    }
    if (!text) {
      if (!turn) out("> ");
      continue;
    }
    // A terminal echoes what was typed; piped input is shown here.
    if (!process.stdin.isTTY) out(`${text}\n`);
    history.add(text);
    if (await noteFromChat(ctx, text)) {
      if (!quit && !turn) out("> ");
      continue;
    }
    // `!command`: run like a turn (the loop stays free to read an approval's answer).
    if (!turn && shellCommand(text) !== undefined) {
      turn = shellFromChat(st, text, plainPaint, ctx.print, () => {}, true).finally(() => {
        turn = undefined;
        if (!quit) out("> ");
      });
      continue;
    }
    // `/queue text` (not a /queue subcommand): for after the running turn (or now, when none runs).
    const queued = queueText(text);
    if (queued !== undefined) {
      if (turn) enqueue(queued);
      else send(queued);
      continue;
    }
    const route = text.startsWith("/") ? routeSlash(ctx.commands, text) : "text";
    if (route === "local" || route === "unknown") {
      if (route === "local") await runSlash(ctx, text).catch((e) => println(`error: ${errorMessage(e)}`));
      else println(`unknown command ${text.split(/\s/)[0]} (see /help)`);
      if (!quit && !turn) out("> ");
      continue;
    }
    if (turn) {
      // Typed at a terminal while a turn runs: guidance for that turn, as
      // Enter does in the full-screen chat. Piped lines are prompts in order.
      const steered = process.stdin.isTTY && route === "text" ? steerNow(host, text) : undefined;
      if (steered) {
        breakLine();
        println(steered.ok ? `» ${steered.shown}  ${steered.note}` : steered.error);
        continue;
      }
      enqueue(text);
      continue;
    }
    send(text);
  }
  if (!quit) {
    // End of input (a pipe, Ctrl-D): let the running turn and the queue finish;
    // nobody is left to answer an approval, so those are refused.
    for (const a of ev.approvals.splice(0)) denyUnanswerable(a.callId);
    for (const q of ev.questions.splice(0)) dismissUnanswerable(q.callId);
    while (turn) await turn;
  }
  process.off("SIGINT", onSigint);
  host.queueRunner = undefined; // what is still queued stays on disk
  if (st.session.busy) st.session.cancel();
  await turn;
  rl.close();
  // Nothing more is read: let the process end even though stdin is a terminal.
  process.stdin.pause();
  breakLine();
  if (st.session.history().some((e) => e.type !== "session")) println(`session ${st.session.id} | continue with: reasonix chat --resume ${st.session.id}`);
  host.queue.close();
  await st.leave(st.session);
  await st.close();
  const { TelemetrySession, telemetryConfig } = await import("../../core/telemetry/session.ts");
  await new TelemetrySession(setup.home, telemetryConfig(st.opts.config), "chat", !!(process.stdin.isTTY && process.stdout.isTTY), counters).finish();
  return 0;
}
