// Driving `reasonix mcp serve` from the SDK's client: a tool call's result, and
// its events up to the end of a turn.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** A tool call on `client`: its error flag, first text and structured content. */
export const caller = (client: Client) => async (name: string, args: Record<string, unknown>) => {
  const r = (await client.callTool({ name, arguments: args })) as any;
  return { isError: !!r.isError, text: r.content[0].text as string, data: r.structuredContent as any };
};

/**
 * Poll events until the turn ends (bounded). Each poll asks for the events
 * after the last one seen (`next`), so it waits for new ones; polling from 0
 * again would return the old ones at once, and the bound would run out in a moment.
 */
export async function untilEnd(call: ReturnType<typeof caller>, id: string, since = 0) {
  const events: any[] = [];
  for (let i = 0; i < 40; i++) {
    const r = await call("reasonix_events", { session_id: id, since, timeout_seconds: 5 });
    events.push(...r.data.events);
    since = r.data.next;
    const end = r.data.events.find((e: any) => e.event.type === "turn_end");
    if (end) return { events, end: end.event, next: since };
  }
  throw new Error("the turn did not end");
}
