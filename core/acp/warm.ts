/**
 * The SDK checks each incoming request against its zod schema, and the first
 * check of a `session/prompt` builds that schema's parser: about 2 ms of CPU
 * in the compiled binary (4-11 ms from source) that a fresh agent would
 * otherwise spend inside the user's first prompt. warmPromptPath runs one
 * made-up prompt through a throwaway agent on an in-memory stream (public
 * SDK API only; the schemas are shared module state) right after
 * `initialize` is answered, while the editor is still setting up.
 */
import * as acp from "@agentclientprotocol/sdk";

/** Resolves true once the throwaway connection has answered and closed (false: gave up after 2 s). */
export async function warmPromptPath(): Promise<boolean> {
  const request = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: acp.methods.agent.session.prompt, params: { sessionId: "warm", prompt: [{ type: "text", text: "warm" }] } })}\n`;
  const { promise: done, resolve: answered } = Promise.withResolvers<void>();
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(request));
      // Closed once the answer is out, so the connection ends by itself.
      void done.then(() => c.close());
    },
  });
  const output = new WritableStream<Uint8Array>({ write: () => answered() });
  const app = acp.agent({ name: "warm" }).onRequest(acp.methods.agent.session.prompt, async () => ({ stopReason: "end_turn" as const }));
  const conn = app.connect(acp.ndJsonStream(output, input));
  const closed = conn.closed.then(() => true, () => true);
  return Promise.race([closed, Bun.sleep(2_000).then(() => false)]);
}
