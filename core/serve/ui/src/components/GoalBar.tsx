// The open session's goal above the composer: objective, status, statistics,
// and Pause / Resume / Clear. Hidden when the session has no goal (or it was cleared).
import { goalStats } from "../../../../goal/format.ts";
import type { GoalView } from "../../../../engine/types.ts";
import { goalRequest } from "../goal.ts";
import { addSystem, type View } from "../transcript.ts";
import { changed } from "../store.ts";

export interface GoalBarProps {
  id: string | null;
  goal?: GoalView;
  view: View;
}

export function GoalBar({ id, goal, view }: GoalBarProps) {
  if (!id || !goal || goal.status === "cleared") return null;
  const act = (action: "pause" | "resume" | "clear") => async () => {
    try {
      await goalRequest(id, { action });
    } catch (x) {
      addSystem(view, `Goal ${action}: ${(x as Error).message}`, "error");
      changed();
    }
  };
  const done = goal.status === "complete";
  return (
    <section id="goal-bar" class={`goal-bar goal-${goal.status}`} aria-label="Goal">
      <div class="goal-text">
        <strong>Goal</strong> <span class="goal-objective">{goal.objective}</span>
        <div class="goal-meta">
          <span id="goal-status" class="goal-status">{goal.status}</span>
          {goal.reason && goal.status !== "active" ? <span class="goal-reason"> — {goal.reason}</span> : null}
          <span class="muted"> · {goalStats(goal)}</span>
        </div>
      </div>
      {goal.status === "active" ? <button type="button" id="goal-pause" onClick={act("pause")}>Pause</button> : null}
      {goal.status === "paused" || goal.status === "blocked" ? <button type="button" id="goal-resume" onClick={act("resume")}>Resume</button> : null}
      <button type="button" id="goal-clear" class="quiet" onClick={act("clear")}>{done ? "Dismiss" : "Clear"}</button>
    </section>
  );
}
