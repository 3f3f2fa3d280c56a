// Test support for usage counters: a loopback collector that counts every
// request, the environment that lets a source (unstamped) build collect at
// all (REASONIX_TEST_TELEMETRY=1, no CI / DO_NOT_TRACK), and a port nothing
// listens on.
import { validatePayload } from "../../core/telemetry/schema.ts";
import type { CliEnv } from "./run-helpers.ts";

export interface Collector { url: string; bodies: string[]; stop(): void }

/** Answers STATUS (or never answers with `hang`); records every request body. */
export function telemetryCollector(status = 204, hang = false): Collector {
  const bodies: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      bodies.push(await req.text());
      if (hang) return new Promise<Response>(() => {});
      return new Response(null, { status });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1/counters`, bodies, stop: () => server.stop(true) };
}

/** A loopback URL whose port was just closed: connecting is refused. */
export async function deadCollectorUrl(): Promise<string> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = s.port;
  await s.stop(true);
  return `http://127.0.0.1:${port}/v1/counters`;
}

/** CE's environment with collecting allowed in this source build, plus EXTRA. */
export function telemetryEnv(ce: CliEnv, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...ce.env, REASONIX_TEST_TELEMETRY: "1", ...extra };
  for (const k of ["CI", "DO_NOT_TRACK", "REASONIX_TELEMETRY"]) if (!(k in extra)) delete env[k];
  return env;
}

export const telemetryToml = (endpoint: string, mode = "auto") => `[telemetry]\nmode = "${mode}"\nendpoint = "${endpoint}"\n`;

/** Every payload of one ping, each checked against the allow-list: throws on any field or value outside it. */
export function checkedPayloads(body: string): Record<string, unknown>[] {
  const payloads = JSON.parse(body) as unknown;
  if (!Array.isArray(payloads) || payloads.length === 0) throw new Error(`a ping is a non-empty array of payloads: ${body}`);
  for (const p of payloads) {
    const errors = validatePayload(p);
    if (errors.length) throw new Error(`payload outside the allow-list: ${errors.join("; ")}\n${JSON.stringify(p)}`);
  }
  return payloads as Record<string, unknown>[];
}
