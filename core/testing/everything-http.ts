// Test support for MCP over HTTP: the reference server-everything (run by
// node, as a user's `npx` would) listening on a loopback port.

/** Start server-everything on PORT with an HTTP transport; resolves once it says it listens (or its stderr ends). */
export async function startEverythingHttp(node: string, everythingJs: string, mode: "streamableHttp" | "sse", port: number): Promise<{ stop(): Promise<unknown> }> {
  const proc = Bun.spawn([node, everythingJs, mode], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "pipe" });
  const reader = proc.stderr.getReader();
  let text = "";
  for (let i = 0; i < 200 && !/listening|running on port/i.test(text); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { stop: async () => (proc.kill(), await proc.exited) };
}
