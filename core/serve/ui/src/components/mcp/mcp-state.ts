// Which MCP dialog is open ("Browse registry" or "Import"), for the header
// button, `/mcp browse [words]` and `/mcp import`, and any panel that wants
// to open them (openMcpDialog is exported for that).
import { changed } from "../../store.ts";

export type McpTab = "browse" | "import";

export const mcpDialog = {
  tab: null as McpTab | null,
  /** Words to search for when the browse tab opens. */
  query: "",
  /** Bumped on every open, so an open dialog starts over for the new request. */
  opened: 0,
  /** The panel takes the focus when it appears (an open), not when the user moves between the tabs. */
  focusPanel: true,
  /** Called after a server was installed or imported (e.g. a settings panel reloading its list). */
  onAdded: null as ((names: string[]) => void) | null,
  /** What had the focus when the dialog opened (it gets it back on close). */
  opener: null as HTMLElement | null,
};

export function openMcpDialog(tab: McpTab, query = ""): void {
  mcpDialog.tab = tab;
  mcpDialog.query = query;
  mcpDialog.opened++;
  mcpDialog.focusPanel = true;
  const active = document.activeElement as HTMLElement | null;
  if (!active?.closest("#mcp-dialog")) mcpDialog.opener = active;
  changed();
}

/** Show the other tab of the open dialog; the focus stays on the tab. */
export function selectMcpTab(tab: McpTab): void {
  mcpDialog.tab = tab;
  mcpDialog.focusPanel = false;
  changed();
}

export function closeMcpDialog(): void {
  mcpDialog.tab = null;
  changed();
  // At once, not in a later frame: a deferred focus would take it from wherever the user has gone since.
  const back = mcpDialog.opener?.isConnected && mcpDialog.opener !== document.body ? mcpDialog.opener : document.getElementById("prompt");
  mcpDialog.opener = null;
  back?.focus();
}
