// Top bar: drawer toggle (phones), host and workspace, model picker, link state.
import { changed, shownModel, state } from "../store.ts";
import { pickModel } from "../web-commands.ts";
import { EffortPicker } from "./EffortPicker.tsx";
import { openMcpDialog } from "./mcp/mcp-state.ts";
import { openSettings } from "./settings/model.ts";
import { t } from "../../../../protocol/i18n/index.ts";

export function Header() {
  const st = state.status ?? {};
  const host = String(st.host ?? "");
  const model = shownModel() ?? "";
  const live = state.transport !== "offline";
  return (
    <header class="top">
      <button type="button" id="drawer-toggle" class="icon narrow-only" aria-label={t("web.sessions")} aria-expanded={state.drawer} aria-controls="sessions" onClick={() => { state.drawer = !state.drawer; state.changesOpen = false; changed(); }}>☰</button>
      <div class="brand"><span class="logo" aria-hidden="true">◆</span><span class="brand-name">Reasonix</span></div>
      <div class="where">
        {host ? <span id="host" class="host" title="host">{host}</span> : null}
        <span id="workspace" class="workspace" title={String(st.workspace ?? "")}>{String(st.workspace ?? "")}</span>
      </div>
      <label class="model">
        <span class="sr">{t("web.model")}</span>
        <select id="model" aria-label={t("web.model")} value={model} onChange={(e) => {
          const sel = e.target as HTMLSelectElement;
          const name = sel.value;
          // Shown as chosen only once it took effect (a keyless entry asks for its key first).
          sel.value = model;
          void pickModel(name);
        }}>
          {!state.models.length ? <option value="">{t("web.noModels")}</option> : null}
          {state.models.map((m) => <option key={m.name} value={m.name}>{`${m.name}${m.hasKey ? "" : t("web.noKey")}`}</option>)}
        </select>
      </label>
      <EffortPicker />
      <button type="button" id="mcp-open" class="small wide-only" title={t("web.mcpTitle")} onClick={() => openMcpDialog("browse")}>MCP</button>
      <span id="conn" class={`conn ${state.transport}`} title={live ? t("web.liveOver", { transport: state.transport === "websocket" ? "WebSocket" : "SSE" }) : t("web.reconnecting")}>{live ? t("web.live") : t("web.offline")}</span>
      <button type="button" id="settings-open" class="icon" aria-label={t("web.settings")} aria-haspopup="dialog" title={t("web.settings")} onClick={(e) => openSettings(e.currentTarget)}>⚙</button>
      <button type="button" id="side-toggle" class="icon narrow-only" aria-label={t("web.sidePanel")} aria-expanded={state.changesOpen} aria-controls="side" onClick={() => { state.changesOpen = !state.changesOpen; state.drawer = false; changed(); }}>☷</button>
    </header>
  );
}
