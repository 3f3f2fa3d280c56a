// "Import": the MCP servers the user's other agents declare (Claude Code,
// Claude Desktop, Cursor, VS Code, Codex, Gemini CLI, Windsurf), from
// GET /api/mcp/import. The user's own agents' servers start checked; a
// server from this workspace's files (someone else's input) starts unchecked
// and says so; ones that cannot be imported are shown with why. Importing
// (POST /api/mcp/import with the listed ids) writes them to the user config,
// moves inline secrets to .env and starts each once.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { mcpDialog } from "./mcp-state.ts";
import { TestReport, type TestReportData } from "./TestReport.tsx";

interface Row { id: string; name: string; type: string; target: string; agent: string; file: string; secrets: string[]; project: boolean; skip?: string }
interface Listing { servers: Row[]; problems: string[]; file: string }
interface Result { imported: (Row & { imported: boolean; test?: TestReportData })[]; file: string; engine?: { reloaded: boolean; error: string | null } }

export function McpImport({ onAdded }: { onAdded?: (names: string[]) => void }) {
  const [list, setList] = useState<Listing | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [result, setResult] = useState<Result | null>(null);
  const [err, setErr] = useState("");
  const [busy, setBusy] = useState(false);
  const head = useRef<HTMLHeadingElement>(null);
  const load = async () => {
    setErr("");
    try {
      const l = await api<Listing>("GET", "/api/mcp/import");
      setList(l);
      setChosen(new Set(l.servers.filter((s) => !s.skip && !s.project).map((s) => s.id)));
    } catch (x) {
      setErr((x as Error).message);
    }
  };
  useEffect(() => void load(), []);
  useLayoutEffect(() => {
    if (mcpDialog.focusPanel) head.current?.focus();
  }, [list === null]);
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  const go = async () => {
    setErr("");
    setBusy(true);
    try {
      const r = await api<Result>("POST", "/api/mcp/import", { ids: list!.servers.filter((s) => chosen.has(s.id)).map((s) => s.id) });
      setResult(r);
      onAdded?.(r.imported.map((x) => x.name));
    } catch (x) {
      setErr((x as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (result) {
    return (
      <div id="mcp-imported" role="status">
        <p>{`Imported ${result.imported.map((x) => x.name).join(", ")} into ${result.file}.`}</p>
        {result.imported.map((x) => (
          <div key={x.id}>
            {x.secrets.length ? <p class="muted">{`${x.name}: secrets moved to the .env file (${x.secrets.join(", ")}).`}</p> : null}
            {x.test ? <TestReport r={x.test} /> : null}
          </div>
        ))}
        {result.engine ? <p class="muted" id="mcp-engine">{result.engine.reloaded ? "New sessions can use it (the engine was reloaded)." : `Not in use yet: ${result.engine.error ?? "the engine was not reloaded"}.`}</p> : null}
        <div class="buttons"><button type="button" autoFocus onClick={() => { setResult(null); setList(null); void load(); }}>Import more</button></div>
      </div>
    );
  }
  return (
    <div class="mcp-import">
      <h3 tabIndex={-1} ref={head}>Servers in your other agents</h3>
      {!list && !err ? <p class="muted" role="status">Looking through the agents' files…</p> : null}
      {list?.problems.map((p) => <p class="mcp-stale" key={p}>{p}</p>)}
      {list && !list.servers.length ? <p class="muted">No MCP servers found in Claude Code, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI or Windsurf.</p> : null}
      {list?.servers.length ? (
        <fieldset class="mcp-candidates">
          <legend class="sr">Servers to import</legend>
          {list.servers.map((s) => (
            <label key={s.id} class={`mcp-candidate${s.skip ? " skipped" : ""}`} data-name={s.name}>
              <input type="checkbox" checked={chosen.has(s.id)} disabled={!!s.skip} onChange={(e) => toggle(s.id, e.currentTarget.checked)} />
              <span class="mcp-candidate-text">
                <span class="mcp-entry-name">{s.name}</span>
                <span class="muted">{` ${s.type} · ${s.agent}${s.project ? " · this workspace's file (not yours: check it first)" : ""}`}</span>
                <code class="mcp-target">{s.target}</code>
                <span class="muted small">{s.file}</span>
                {s.secrets.length ? <span class="muted small">{`Inline secrets move to the .env file: ${s.secrets.join(", ")}`}</span> : null}
                {s.skip ? <span class="mcp-skip">{`Not importable: ${s.skip}`}</span> : null}
              </span>
            </label>
          ))}
        </fieldset>
      ) : null}
      <p class="error" id="mcp-import-error" role="alert">{err}</p>
      {list?.servers.length ? (
        <div class="buttons">
          <button type="button" class="primary" id="mcp-import-go" disabled={busy || !chosen.size} onClick={() => void go()}>{busy ? "Importing and starting…" : `Import ${chosen.size} and start`}</button>
        </div>
      ) : null}
    </div>
  );
}
