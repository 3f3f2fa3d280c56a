/**
 * An MCP server's input request (engine `elicitation_request`) → ACP
 * `elicitation/create`, scoped to the session and the tool call it came
 * during, for clients that advertise `elicitation.form`. Anything but a
 * clear answer (an error, an unknown action, a form that does not fit) ends
 * as a decline; without the capability the engine declines on its own.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { errorMessage } from "../errors.ts";
import type { ElicitAnswer, EngineEvent, EngineSession } from "../engine/types.ts";

export type ElicitPort = (p: acp.CreateElicitationRequest) => Promise<acp.CreateElicitationResponse>;

/** Whether the client said it can show forms. */
export const canElicit = (caps: acp.ClientCapabilities): boolean => !!(caps as { elicitation?: { form?: unknown } }).elicitation?.form;

export async function relayElicitation(
  sessionId: string,
  e: Extract<EngineEvent, { type: "elicitation_request" }>,
  live: EngineSession,
  ask: ElicitPort,
  onError: (why: string) => void,
): Promise<void> {
  let answer: ElicitAnswer = { action: "decline" };
  try {
    const res = await ask({ sessionId, ...(e.callId ? { toolCallId: e.callId } : {}), mode: "form", message: `${e.server}: ${e.message}`, requestedSchema: e.schema } as acp.CreateElicitationRequest);
    if (res?.action === "accept") answer = { action: "accept", content: ((res as { content?: Record<string, unknown> | null }).content ?? {}) as Record<string, unknown> };
    else if (res?.action === "cancel") answer = { action: "cancel" };
    else if (res?.action !== "decline") onError(`elicitation answer has unknown action ${JSON.stringify(res?.action)}; declining`);
  } catch (err) {
    onError(`elicitation request failed (${errorMessage(err)}); declining`);
  }
  try {
    live.answerElicitation(e.id, answer);
  } catch (err) {
    // A form that does not fit its schema: the server gets a decline, the log says why.
    onError(`elicitation answer refused (${errorMessage(err)}); declining`);
    try {
      live.answerElicitation(e.id, { action: "decline" });
    } catch {
      // The call ended meanwhile: nothing waits for it.
    }
  }
}
