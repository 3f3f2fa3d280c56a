// Reasoning effort of the open session (POST /api/sessions/:id/effort); each
// vendor maps the word onto its own scale. "default" = the provider entry's.
import { state } from "../store.ts";
import { chosenEffort as chosen, setEffort as pick } from "../web-commands.ts";
import { EFFORT_CHOICES as EFFORTS } from "../../../../protocol/modes.ts";

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
