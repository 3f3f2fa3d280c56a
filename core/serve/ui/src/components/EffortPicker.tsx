// Reasoning effort of the open session (POST /api/sessions/:id/effort); each
// vendor maps the word onto its own scale. "default" = the provider entry's.
import { api, sessionPath } from "../api.ts";
import { changed, flashBanner, setBanner, state } from "../store.ts";
import { EFFORT_CHOICES as EFFORTS } from "../../../../protocol/modes.ts";
/** What this tab set per session (the engine keeps the real value). */
const chosen = new Map<string, string>();

async function pick(id: string, effort: string): Promise<void> {
  try {
    const r = await api<{ effort: string }>("POST", sessionPath(id, "effort"), { effort });
    chosen.set(id, r.effort);
    flashBanner(`Reasoning effort ${r.effort} from the next request on.`, 2500);
  } catch (x) {
    setBanner(`Could not set the reasoning effort: ${(x as Error).message}`, "error");
  }
  changed();
}

export function EffortPicker() {
  const id = state.current;
  if (!id) return null;
  return (
    <label class="effort">
      <span class="sr">Reasoning effort</span>
      <select id="effort" aria-label="Reasoning effort" title="Reasoning effort" value={chosen.get(id) ?? "default"} onChange={(e) => void pick(id, (e.target as HTMLSelectElement).value)}>
        {EFFORTS.map((v) => <option key={v} value={v}>{v === "default" ? "effort: default" : `effort: ${v}`}</option>)}
      </select>
    </label>
  );
}
