/** Scripted Anthropic Messages API server (same script format as scripted-llm.ts). */
import { argText, pieces, startScripted, type RecordedRequest, type ReplyStep, type ScriptedOptions, type ScriptedServer, type ScriptStep } from "./scripted-llm.ts";

const ev = (name: string, obj: unknown) => `event: ${name}\ndata: ${JSON.stringify(obj)}\n\n`;

function anthropicFrames(step: ReplyStep, req: RecordedRequest, n: number): string[] {
  const size = step.chunkSize ?? 7;
  const model = String(req.body?.model ?? "scripted-model");
  const u = step.usage ?? {};
  const input = u.input ?? 100;
  const hit = u.cacheHit ?? 0;
  const frames: string[] = [
    ev("message_start", {
      type: "message_start",
      message: {
        id: `msg_scripted_${n}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: input - hit, cache_creation_input_tokens: 0, cache_read_input_tokens: hit, output_tokens: 1 },
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
  (step.toolCalls ?? []).forEach((c, i) => {
    frames.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: c.id ?? `toolu_${n}_${i}`, name: c.name, input: {} } }));
    for (const p of pieces(argText(c.arguments), size)) frames.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
    frames.push(ev("content_block_stop", { type: "content_block_stop", index }));
    index++;
  });
  frames.push(ev("message_delta", { type: "message_delta", delta: { stop_reason: step.finishReason ?? (step.toolCalls?.length ? "tool_use" : "end_turn"), stop_sequence: null }, usage: { output_tokens: u.output ?? 20 } }));
  frames.push(ev("message_stop", { type: "message_stop" }));
  return frames;
}

export function startScriptedAnthropic(steps: ScriptStep[] = [], opts: ScriptedOptions = {}): Promise<ScriptedServer> {
  return startScripted(
    {
      prefix: "",
      chatPath: /\/v1\/messages$/,
      modelsPath: /\/v1\/models$/,
      frames: anthropicFrames,
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
