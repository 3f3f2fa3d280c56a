/**
 * What a browser gets from the local tunnel port while the SSH link cannot
 * carry its request: a short 503 page that says so and reloads itself, instead
 * of a request that hangs until the link is declared dead, or a bare reset.
 */

export interface LinkDownState {
  host: string;
  /** Date.now() of the last bytes from the server. */
  lastRxAt: number;
  /** Why the link is down, when known (after it was declared dead). */
  reason?: string;
  /** The link is fine, the remote serve is not ready yet (connecting, installing, starting). */
  starting?: boolean;
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** The full HTTP/1.1 response (headers and body). */
export function linkDownResponse(s: LinkDownState, now = Date.now()): string {
  if (s.starting) {
    return page(
      `Reasonix: waiting for ${s.host}`,
      `Connected to ${s.host}; the remote serve is not ready yet`,
      "reasonix remote connect is setting it up (installing or starting it); this page reloads by itself.",
      "starting",
    );
  }
  const secs = Math.max(0, Math.round((now - s.lastRxAt) / 1000));
  const what = s.reason ? `the link is down (${s.reason}); reconnecting` : "the link is not answering; waiting for it, then reconnecting";
  return page(
    `Reasonix: link to ${s.host} down`,
    `The link to ${s.host} is down`,
    `No bytes from ${s.host} for ${secs} s: ${what}. reasonix remote connect keeps trying; this page reloads by itself, and the remote serve keeps running.`,
    "down",
  );
}

function page(title: string, heading: string, text: string, state: string): string {
  const body = [
    "<!doctype html>",
    '<meta charset="utf-8"><meta http-equiv="refresh" content="3">',
    `<title>${escape(title)}</title>`,
    `<h1>${escape(heading)}</h1>`,
    `<p>${escape(text)}</p>`,
    "",
  ].join("\n");
  const len = Buffer.byteLength(body);
  return [
    "HTTP/1.1 503 Service Unavailable",
    "Content-Type: text/html; charset=utf-8",
    "Cache-Control: no-store",
    "Retry-After: 3",
    `X-Reasonix-Link: ${state}`,
    "Connection: close",
    `Content-Length: ${len}`,
    "",
    body,
  ].join("\r\n");
}
