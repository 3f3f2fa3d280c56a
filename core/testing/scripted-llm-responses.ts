/**
 * Scripted OpenAI Responses API server (POST /v1/responses, same script
 * format as scripted-llm.ts): reasoning summaries, output text, function
 * calls and usage as the vendor streams them. A step's `finishReason` of
 * "max_output_tokens" or "content_filter" ends with response.incomplete.
 * Reasoning items carry `encrypted_content` when the request asks for it
 * (include: ["reasoning.encrypted_content"]), as OpenAI's do.
 */
import { argText, pieces, startScripted, type RecordedRequest, type ReplyStep, type ScriptedOptions, type ScriptedServer, type ScriptStep } from "./scripted-llm.ts";

function responsesFrames(step: ReplyStep, req: RecordedRequest, n: number): string[] {
  const size = step.chunkSize ?? 7;
  const model = String(req.body?.model ?? "scripted-model");
  const id = `resp_scripted_${n}`;
  let seq = 0;
  const frames: string[] = [];
  const ev = (type: string, obj: Record<string, unknown>) => frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...obj })}\n\n`);
  const base = { id, object: "response", created_at: 1_700_000_000 + n, model, output: [] as unknown[] };
  ev("response.created", { response: { ...base, status: "in_progress" } });
  ev("response.in_progress", { response: { ...base, status: "in_progress" } });
  const incomplete = step.finishReason === "max_output_tokens" || step.finishReason === "content_filter";
  let out = 0;
  if (step.reasoning) {
    const item_id = `rs_${n}`;
    const output_index = out++;
    ev("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
    ev("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
    for (const p of pieces(step.reasoning, size)) ev("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta: p });
    ev("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text: step.reasoning });
    const encrypted = Array.isArray(req.body?.include) && req.body.include.includes("reasoning.encrypted_content") ? { encrypted_content: `enc:${n}:${step.reasoning}` } : {};
    ev("response.output_item.done", { output_index, item: { id: item_id, type: "reasoning", summary: [{ type: "summary_text", text: step.reasoning }], ...encrypted } });
  }
  if (step.text) {
    const item_id = `msg_${n}`;
    const output_index = out++;
    ev("response.output_item.added", { output_index, item: { id: item_id, type: "message", role: "assistant", status: "in_progress", content: [] } });
    ev("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    for (const p of pieces(step.text, size)) ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta: p, logprobs: [] });
    ev("response.output_text.done", { item_id, output_index, content_index: 0, text: step.text, logprobs: [] });
    ev("response.output_item.done", { output_index, item: { id: item_id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text, annotations: [] }] } });
  }
  (step.toolCalls ?? []).forEach((c, i) => {
    const item_id = `fc_${n}_${i}`;
    const output_index = out++;
    const call_id = c.id ?? `call_${n}_${i}`;
    const args = argText(c.arguments);
    ev("response.output_item.added", { output_index, item: { id: item_id, type: "function_call", call_id, name: c.name, arguments: "", status: "in_progress" } });
    for (const p of pieces(args, size)) ev("response.function_call_arguments.delta", { item_id, output_index, delta: p });
    if (incomplete) return; // cut off: no done events
    ev("response.function_call_arguments.done", { item_id, output_index, arguments: args });
    ev("response.output_item.done", { output_index, item: { id: item_id, type: "function_call", call_id, name: c.name, arguments: args, status: "completed" } });
  });
  const u = step.usage ?? {};
  const input = u.input ?? 100;
  const output = u.output ?? 20;
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheHit ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: input + output,
  };
  if (incomplete) ev(step.incompleteEvent ?? "response.incomplete", { response: { ...base, status: "incomplete", incomplete_details: { reason: step.finishReason }, usage } });
  else ev("response.completed", { response: { ...base, status: "completed", usage } });
  return frames;
}

export function startScriptedResponses(steps: ScriptStep[] = [], opts: ScriptedOptions = {}): Promise<ScriptedServer> {
  return startScripted(
    {
      prefix: "/v1",
      chatPath: /\/responses$/,
      modelsPath: /\/models$/,
      frames: responsesFrames,
      errorFrame: (message) => `event: error\ndata: ${JSON.stringify({ type: "error", code: "server_error", message, param: null, sequence_number: 99 })}\n\n`,
      errorBody: (status, message) => ({ error: { message, type: status === 401 ? "invalid_request_error" : "api_error", param: null, code: status === 401 ? "invalid_api_key" : null } }),
      modelsBody: (models) => ({ object: "list", data: models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "scripted" })) }),
    },
    steps,
    opts,
  );
}
