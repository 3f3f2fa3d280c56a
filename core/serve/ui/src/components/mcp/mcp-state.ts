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
};

export function openMcpDialog(tab: McpTab, query = ""): void {
  mcpDialog.tab = tab;
  mcpDialog.query = query;
  mcpDialog.opened++;
  mcpDialog.focusPanel = true;
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
  requestAnimationFrame(() => (document.getElementById("mcp-open") ?? document.getElementById("prompt"))?.focus());
}
