// /queue: the prompts waiting for the end of the running turn (core/host/queue.ts)
// — list them (bounded previews), show one whole, edit, delete, move, pause,
// resume, and retry the last one whose turn failed.
import { errorMessage } from "../../errors.ts";
import { parseQueueCommand, queuePreview, type QueueView } from "../../protocol/queue.ts";
import { failed, registerCommand, result } from "./registry.ts";
import type { CommandContext, CommandResult } from "./types.ts";

const PAUSED_WHY: Record<string, string> = {
  user: "paused",
  crash: "paused: the process that held it ended without finishing (a crash?)",
  failed: "paused: a queued prompt's turn failed (/queue retry runs it again)",
  restored: "paused: kept from the last time this session was open",
};

/** The lines of `/queue list`. */
export function queueLines(v: QueueView): string[] {
  const lines: string[] = [];
  if (!v.items.length) lines.push("The queue is empty (Tab while a turn runs queues what you typed for after it).");
  else lines.push(`Queued (${v.items.length}/${v.limits.items}, sent in this order after the running turn):`);
  for (const i of v.items) lines.push(`  ${i.n}. ${i.preview}${i.interrupted ? "  (was running when the process ended)" : ""}`);
  if (v.running) lines.push(`running now: ${v.running.preview}`);
  if (v.failed) lines.push(`last failed: ${v.failed.preview} (/queue retry)`);
  if (v.paused) lines.push(`${PAUSED_WHY[v.pausedWhy ?? "user"] ?? "paused"} · /queue resume sends them again`);
  return lines;
}

/** ACP and `reasonix run` show and change the queue; the chat and the web UI send what is in it. */
const NO_RUNNER = " (queued prompts are sent by reasonix chat or the web UI: open the session there)";

function run(ctx: CommandContext, arg: string): CommandResult {
  const host = ctx.host;
  const q = host.queue;
  const a = parseQueueCommand(arg);
  if ("error" in a) return failed("queue", a.error);
  const done = (line: string) => {
    const v = q.view();
    return result("queue", [line, ...(a.action === "list" ? [] : queueLines(v).slice(0, 1))], { data: { queue: v } });
  };
  switch (a.action) {
    case "list":
      return result("queue", queueLines(q.view()), { data: { queue: q.view() } });
    case "show": {
      const item = q.get(a.n);
      return result("queue", [`Queued prompt ${a.n} (${Buffer.byteLength(item.text)} bytes):`, ...item.text.split("\n")], { data: { item, queue: q.view() } });
    }
    case "edit":
      q.edit(a.n, a.text);
      return done(`edited ${a.n}: ${queuePreview(a.text)}`);
    case "delete":
      return done(`deleted ${a.n}: ${queuePreview(q.delete(a.n).text)}`);
    case "move": {
      const item = q.move(a.n, a.to);
      return done(`moved to ${Math.min(a.to, q.length)}: ${queuePreview(item.text)}`);
    }
    case "clear":
      return done(`cleared ${q.clear()} queued prompt(s)`);
    case "pause":
      q.pause();
      return done("queue paused: nothing queued is sent until /queue resume");
    case "resume":
      q.resume();
      return done(host.pumpQueue() ? "queue resumed: sending the next prompt" : `queue resumed${host.queueRunner ? "" : NO_RUNNER}`);
    case "retry": {
      const item = q.retry();
      return done(host.pumpQueue() ? `retrying: ${queuePreview(item.text)}` : `queued again at the head: ${queuePreview(item.text)}`);
    }
    case "add": {
      const item = host.enqueue(a.text);
      return done(q.view().running?.id === item.id ? `sending now: ${queuePreview(a.text)}` : `queued: ${queuePreview(a.text)}${host.queueRunner ? "" : NO_RUNNER}`);
    }
  }
}

registerCommand({
  name: "queue",
  execute: (ctx, arg) => {
    try {
      return run(ctx, arg);
    } catch (e) {
      return failed("queue", `queue: ${errorMessage(e)}`);
    }
  },
});
