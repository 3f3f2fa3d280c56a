// The MCP servers dialog: "Browse registry" and "Import" as two tabs of one
// modal, opened by the header's MCP button, `/mcp browse [words]`,
// `/mcp import`, or openMcpDialog() from any other panel. Escape closes it;
// arrow keys move between the tabs.
import { useStore } from "../../store.ts";
import { McpBrowse } from "./McpBrowse.tsx";
import { McpImport } from "./McpImport.tsx";
import { closeMcpDialog, mcpDialog, openMcpDialog, selectMcpTab, type McpTab } from "./mcp-state.ts";

const TABS: [McpTab, string][] = [
  ["browse", "Browse registry"],
  ["import", "Import"],
];

export function McpDialog() {
  useStore();
  const tab = mcpDialog.tab;
  if (!tab) return null;
  const onTabKey = (e: KeyboardEvent) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    e.preventDefault();
    const next = TABS[(TABS.findIndex(([t]) => t === tab) + 1) % TABS.length]![0];
    selectMcpTab(next);
    requestAnimationFrame(() => document.getElementById(`mcp-tab-${next}`)?.focus());
  };
  const added = (names: string[]) => mcpDialog.onAdded?.(names);
  return (
    <div class="dialog-backdrop">
      <div id="mcp-dialog" class="card dialog mcp-dialog" role="dialog" aria-modal="true" aria-labelledby="mcp-h">
        <div class="mcp-head">
          <h2 id="mcp-h">Add MCP servers</h2>
          <button type="button" class="icon quiet" id="mcp-close" aria-label="Close" onClick={closeMcpDialog}>×</button>
        </div>
        <div role="tablist" aria-label="How to add" class="mcp-tabs" onKeyDown={onTabKey}>
          {TABS.map(([t, label]) => (
            <button key={t} type="button" role="tab" id={`mcp-tab-${t}`} aria-selected={tab === t} aria-controls="mcp-panel" tabIndex={tab === t ? 0 : -1} onClick={() => selectMcpTab(t)}>{label}</button>
          ))}
        </div>
        <div id="mcp-panel" role="tabpanel" aria-labelledby={`mcp-tab-${tab}`} class="mcp-panel">
          {tab === "browse" ? <McpBrowse key={`b${mcpDialog.opened}`} onAdded={added} /> : <McpImport key={`i${mcpDialog.opened}`} onAdded={added} />}
        </div>
        <p class="muted small">Servers are added to your user config on the server host and run in its sandbox, like <code>reasonix mcp add</code>.</p>
      </div>
    </div>
  );
}

export { McpBrowse, McpImport, closeMcpDialog, openMcpDialog };
