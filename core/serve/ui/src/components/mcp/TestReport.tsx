// What a server offered when it was started once after install/import (the
// same report as `reasonix mcp test`): tools, prompts, resources, or why it
// did not start. Server text is rendered as text.
export interface TestReportData {
  name: string;
  ok: boolean;
  status: string;
  error?: string;
  stderr?: string;
  server?: { name: string; version: string };
  tools: { name: string; raw: string; readOnly: boolean }[];
  prompts: string[];
  resources: string[];
}

export function TestReport({ r }: { r: TestReportData }) {
  if (!r.ok) {
    return (
      <div class="mcp-test failed" data-server={r.name}>
        <p class="error">{`${r.name} did not start (${r.status}): ${r.error ?? "no reason given"}`}</p>
        {r.stderr ? <pre class="mcp-stderr">{r.stderr}</pre> : null}
        <p class="muted">It stays in your config: fix it and run <code>reasonix mcp test {r.name}</code>, or remove it.</p>
      </div>
    );
  }
  return (
    <div class="mcp-test ok" data-server={r.name}>
      <p>{`${r.name} is running${r.server ? ` (${r.server.name} ${r.server.version})` : ""}: ${r.tools.length} tools, ${r.prompts.length} prompts, ${r.resources.length} resources.`}</p>
      <details open={r.tools.length <= 12}>
        <summary>{`Tools (${r.tools.length})`}</summary>
        <ul class="mcp-tools">{r.tools.map((t) => <li key={t.name}><code>{t.name}</code>{t.readOnly ? <span class="muted"> read-only</span> : null}</li>)}</ul>
      </details>
      {r.prompts.length ? <p class="muted">{`Prompts: ${r.prompts.join(", ")}`}</p> : null}
      {r.resources.length ? <p class="muted">{`Resources: ${r.resources.slice(0, 10).join(", ")}${r.resources.length > 10 ? " …" : ""}`}</p> : null}
    </div>
  );
}
