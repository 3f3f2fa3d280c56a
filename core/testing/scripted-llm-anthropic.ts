/** Scripted Anthropic Messages API server (same script format as scripted-llm.ts). */
import { argText, pieces, startScripted, type RecordedRequest, type ReplyStep, type ScriptedOptions, type ScriptedServer, type ScriptStep } from "./scripted-llm.ts";

/**
 * A prompt cache like Anthropic's, for usage receipts: every block marked
 * with cache_control writes the prefix up to it; a later request reads the
 * longest marked prefix written before. Tokens are characters / 4.
 */
export function promptCache() {
  const written = new Set<string>();
  const strip = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === "cache_control" ? undefined : v)));
  return (body: any): { input: number; read: number; write: number } => {
    const seq: { marked: boolean; json: string }[] = [];
    const add = (role: string, b: any) => seq.push({ marked: !!b?.cache_control, json: JSON.stringify([role, strip(b)]) });
    for (const t of body?.tools ?? []) add("tool", t);
    for (const b of Array.isArray(body?.system) ? body.system : [{ type: "text", text: String(body?.system ?? "") }]) add("system", b);
    (body?.messages ?? []).forEach((m: any, i: number) => {
      for (const b of Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }]) add(`${m.role}${i}`, b);
    });
    let prefix = "";
    let read = 0;
    let longest = 0;
    for (const x of seq) {
      prefix += x.json;
      if (!x.marked) continue;
      const tokens = Math.ceil(prefix.length / 4);
      if (written.has(prefix)) read = Math.max(read, tokens);
      longest = Math.max(longest, tokens);
      written.add(prefix);
    }
    const total = Math.ceil(prefix.length / 4);
    const write = Math.max(0, longest - read);
    return { input: total - read - write, read, write };
  };
}

const ev = (name: string, obj: unknown) => `event: ${name}\ndata: ${JSON.stringify(obj)}\n\n`;

function anthropicFrames(step: ReplyStep, req: RecordedRequest, n: number, cache?: ReturnType<typeof promptCache>): string[] {
  const size = step.chunkSize ?? 7;
  const model = String(req.body?.model ?? "scripted-model");
  const u = step.usage ?? {};
  const sim = cache && !step.usage ? cache(req.body) : undefined;
  // Total input, as Reasonix counts it: uncached + cache reads + cache writes.
  const input = sim ? sim.input + sim.read + sim.write : (u.input ?? 100);
  const hit = sim ? sim.read : (u.cacheHit ?? 0);
  const write = sim ? sim.write : (u.cacheWrite ?? 0);
  const inputUsage = { input_tokens: input - hit - write, cache_creation_input_tokens: write, cache_read_input_tokens: hit };
  const late = step.anthropicUsageIn === "delta";
  const frames: string[] = [
    ev("message_start", {
      type: "message_start",
      message: {
        id: `msg_scripted_${n}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
        usage: late ? { input_tokens: 0, output_tokens: 1 } : { ...inputUsage, output_tokens: 1 },
      },
    }),
    ev("ping", { type: "ping" }),
  ];
  let index = 0;
  if (step.reasoning) {
    frames.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const p of pieces(step.reasoning, size)) frames.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: p } }));
    frames.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: step.signature ?? `sig-${n}` } }));
    frames.push(ev("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  if (step.text) {
    frames.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    for (const p of pieces(step.text, size)) frames.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } }));
    frames.push(ev("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  for (const b of step.serverBlocks ?? []) {
    const { input, ...rest } = b;
    frames.push(ev("content_block_start", { type: "content_block_start", index, content_block: input === undefined ? b : { ...rest, input: {} } }));
    if (input !== undefined) for (const p of pieces(JSON.stringify(input), size)) frames.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
    frames.push(ev("content_block_stop", { type: "content_block_stop", index }));
    index++;
  }
  (step.toolCalls ?? []).forEach((c, i) => {
    frames.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: c.id ?? `toolu_${n}_${i}`, name: c.name, input: {} } }));
    for (const p of pieces(argText(c.arguments), size)) frames.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
    frames.push(ev("content_block_stop", { type: "content_block_stop", index }));
    index++;
  });
  frames.push(ev("message_delta", { type: "message_delta", delta: { stop_reason: step.finishReason ?? (step.toolCalls?.length ? "tool_use" : "end_turn"), stop_sequence: null }, usage: late ? { ...inputUsage, output_tokens: u.output ?? 20 } : { output_tokens: u.output ?? 20 } }));
  frames.push(ev("message_stop", { type: "message_stop" }));
  return frames;
}

/** `simulateCache`: usage follows the request's cache_control breakpoints (see promptCache) unless a step sets usage. */
export function startScriptedAnthropic(steps: ScriptStep[] = [], opts: ScriptedOptions & { simulateCache?: boolean } = {}): Promise<ScriptedServer> {
  const cache = opts.simulateCache ? promptCache() : undefined;
  return startScripted(
    {
      prefix: "",
      chatPath: /\/v1\/messages$/,
      modelsPath: /\/v1\/models$/,
      frames: (step, req, n) => anthropicFrames(step, req, n, cache),
      errorFrame: (message) => ev("error", { type: "error", error: { type: "overloaded_error", message } }),
      errorBody: (status, message) => ({
        type: "error",
        error: { type: status === 401 ? "authentication_error" : status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error", message },
      }),
      modelsBody: (models) => ({ data: models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" })), has_more: false, first_id: models[0] ?? null, last_id: models[models.length - 1] ?? null }),
    },
    steps,
    opts,
  );
}
