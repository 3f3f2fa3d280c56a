/**
 * One ACP session: a live engine session plus the client it reports to.
 * Engine events become session/update notifications, sent strictly in order;
 * a prompt answers only after every update of its turn has been written.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { errorMessage } from "../errors.ts";
import type { Engine, EngineEvent, EngineSession, PermissionMode, SteerDisposition } from "../engine/types.ts";
import type { AcpLog } from "./log.ts";
import { configOptions, EFFORT_VALUES, modeSelectable, modeState as modeStateOf, modelState } from "./modes.ts";
import { askPermission, permissionRequest } from "./permissions.ts";
import { relayQuestion } from "./question.ts";
import { relayElicitation, type ElicitPort } from "./elicitation.ts";
import { builtinCommand } from "../protocol/commands.ts";
import { dispatch, resultText } from "../host/commands/index.ts";
import { promptText } from "./prompt.ts";
import { SHELL_LINE_BUSY, shellLine } from "../protocol/shell-line.ts";
import { checkModelVision, promptImages } from "./images.ts";
import { goalControl, goalControlOf, goalPromptArg, runAcpGoal, type GoalControlAction, type GoalControlResult } from "./goal.ts";
import { stopReason, UpdateTranslator, type Update } from "./updates.ts";
import { RelayedCalls } from "./relayed.ts";
import { SessionHost } from "../host/session-host.ts";
import { SELECTABLE_MODES } from "../protocol/modes.ts";

/** What a session needs from the connection. */
export interface ClientPort {
  notify(params: acp.SessionNotification): Promise<void>;
  requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  log: AcpLog;
  /** Current text of a file for diffs (an editor buffer when the client offers fs reads). */
  readCurrent?: (abs: string) => string | null;
  /** Present when the client shows input forms (elicitation.form): MCP servers' questions go there. */
  elicit?: ElicitPort;
}

export class AcpSession {
  private chain: Promise<void> = Promise.resolve();
  private readonly translator: UpdateTranslator;
  private unsubscribe: (() => void) | undefined;
  private lastError: string | undefined;
  private prompting = false;
  /**
   * While a prompt's turns run: text steered after the running turn read
   * guidance for the last time (it is finishing). The same prompt answers it
   * in another turn before it returns; undefined when no prompt takes more.
   */
  private lateSteers: string[] | undefined;
  /** Subagents' calls the editor first hears of in a permission request. */
  private readonly relayed = new RelayedCalls();
  /** Set when the engine exists for this session alone (client-passed MCP servers). */
  ownEngine = false;

  /** The live session with its mode and effort, which a model switch keeps (core/host). */
  private readonly host: SessionHost;

  constructor(
    live: EngineSession,
    readonly engine: Engine,
    private readonly port: ClientPort,
    mode: PermissionMode,
  ) {
    this.translator = new UpdateTranslator(live.workspace, undefined, port.readCurrent, () => this.engine.models().find((m) => m.name === this.model)?.contextWindow ?? 0);
    this.host = new SessionHost(engine, live, { mode, onSession: (next) => this.attach(next) });
    this.attach(live);
  }

  private get live(): EngineSession { return this.host.session; }
  get mode(): PermissionMode { return this.host.mode!; }

  get id(): string { return this.live.id; }
  get workspace(): string { return this.live.workspace; }
  get model(): string { return this.live.model; }
  get busy(): boolean { return this.prompting || this.host.busy; }

  private attach(live: EngineSession): void {
    this.unsubscribe?.();
    this.unsubscribe = live.subscribe((e) => this.onEvent(e));
    live.offerElicitation(!!this.port.elicit);
  }

  /** Queue one update; updates go out in the order they were queued. */
  send(update: Update): void {
    const params = { sessionId: this.id, update };
    this.chain = this.chain.then(() => this.port.notify(params)).catch((e) => this.port.log.error(`session/update for ${this.id} failed: ${errorMessage(e)}`));
  }

  /** Resolves once every queued update has been written. */
  flush(): Promise<void> {
    return this.chain;
  }

  private onEvent(e: EngineEvent): void {
    for (const u of this.relayed.observe(e)) this.send(u);
    if (e.type === "approval_request") {
      const params = permissionRequest(this.id, e, this.translator);
      // After the tool_call announcement, so the client knows the call it is asked about.
      void this.flush()
        .then(() => askPermission((p) => this.port.requestPermission(p), params, (why) => this.port.log.error(`${this.id}: ${why}`)))
        .then((decision) => {
          for (const u of this.relayed.answered(e.callId, decision)) this.send(u);
          try {
            this.host.approve(e.callId, decision);
          } catch {
            // The turn ended (cancelled) before the answer came: nothing waits for it.
          }
        });
      return;
    }
    if (e.type === "elicitation_request") {
      if (!this.port.elicit) return;
      const elicit = this.port.elicit;
      // After the tool_call announcement, like a permission request.
      void this.flush().then(() => relayElicitation(this.id, e, this.live, elicit, (why) => this.port.log.error(`${this.id}: ${why}`)));
      return;
    }
    if (e.type === "elicitation_resolved" || e.type === "question_resolved") return;
    if (e.type === "question_request") {
      // After the tool_call announcement, like a permission request.
      void this.flush().then(() =>
        relayQuestion(this.id, e, this.port, this.translator, (a) => this.host.answerQuestion(e.callId, a), (why) => this.port.log.error(`${this.id}: ${why}`)),
      );
      return;
    }
    // bash calls run one at a time in call order: the oldest unanswered one is the one running.
    if (e.type === "tool_call" && e.name === "bash") this.openBash.push(e.callId);
    if (e.type === "tool_result") this.openBash = this.openBash.filter((id) => id !== e.callId);
    if (e.type === "error") this.lastError = e.message;
    if (e.type === "turn_end" && e.error && !this.lastError) this.lastError = e.error;
    for (const u of this.translator.live(e)) this.send(u);
  }

  /** The stored conversation as updates, before session/load answers. */
  async replay(): Promise<void> {
    for (const u of this.translator.replay(this.live.history())) this.send(u);
    await this.flush();
  }

  async prompt(blocks: acp.ContentBlock[]): Promise<acp.PromptResponse> {
    // `/goal pause|status|clear` during a running goal: answered at once (core/acp/goal.ts).
    if (this.busy && this.live.goal.running) {
      const control = goalControlOf(promptText(blocks));
      if (control) return this.goalControlPrompt(control);
    }
    if (this.busy) {
      const shell = shellLine(promptText(blocks, "prompt", { images: true }));
      throw RequestError.invalidRequest({ sessionId: this.id }, shell !== undefined ? SHELL_LINE_BUSY : "a prompt is already running in this session (cancel it, or steer it)");
    }
    const text = promptText(blocks, "prompt", { images: true });
    const shell = shellLine(text);
    if (shell !== undefined) return this.shell(shell, promptImages(blocks).length > 0);
    const images = promptImages(blocks);
    if (images.length) checkModelVision(images, this.engine.models().find((m) => m.name === this.model));
    const goalArg = goalPromptArg(text);
    if (goalArg !== undefined) return this.goal(goalArg);
    if (builtinCommand(text)) return this.command(text);
    this.prompting = true;
    this.lastError = undefined;
    try {
      let reason;
      this.lateSteers = [];
      try {
        reason = await this.host.submit(text, images.length ? { images } : undefined);
        // Guidance that reached the turn too late to be read: the next turn of this same prompt, in the order sent.
        while (reason === "done" && this.lateSteers.length) reason = await this.host.submit(this.lateSteers.splice(0).join("\n\n"));
      } catch (e) {
        throw RequestError.internalError({ sessionId: this.id }, errorMessage(e));
      } finally {
        // A cancelled or failed turn: what is left goes with the next prompt.
        for (const t of this.lateSteers.splice(0)) {
          try {
            this.live.steer(t);
          } catch {}
        }
        this.lateSteers = undefined;
      }
      await this.flush();
      const stop = stopReason(reason);
      if (!stop) throw RequestError.internalError({ sessionId: this.id, reason }, this.lastError ?? "the turn failed");
      return { stopReason: stop };
    } finally {
      this.prompting = false;
    }
  }

  /**
   * A `!command` prompt: the shell line runs through the session (rules,
   * hooks, sandbox; a permission request when the rules ask), its bash call
   * shown as a tool call; the output waits for the next prompt. end_turn.
   */
  private async shell(command: string, images: boolean): Promise<acp.PromptResponse> {
    if (images) throw RequestError.invalidParams({ field: "prompt" }, "a shell line (!command) takes no pictures");
    this.prompting = true;
    try {
      await this.host.runShell(command).catch((e: unknown) => {
        throw RequestError.internalError({ sessionId: this.id }, errorMessage(e));
      });
      await this.flush();
      return { stopReason: "end_turn" };
    } finally {
      this.prompting = false;
    }
  }

  /** `/goal …` (core/acp/goal.ts): the request stays open while the goal drives turns. */
  private async goal(arg: string): Promise<acp.PromptResponse> {
    this.prompting = true;
    try {
      const stopReason = await runAcpGoal(this.live, arg, (t) => this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${t}\n` } }));
      await this.flush();
      return { stopReason };
    } finally {
      this.prompting = false;
    }
  }

  /** GOAL_METHOD: pause, status or clear while a /goal request may be open. */
  goalControl(action: GoalControlAction): GoalControlResult {
    return goalControl(this.live, action);
  }

  /** A `/goal pause|status|clear` prompt sent while the goal's own request is open: one message, then end_turn. */
  private async goalControlPrompt(action: GoalControlAction): Promise<acp.PromptResponse> {
    let text: string;
    try {
      text = this.goalControl(action).lines.join("\n");
    } catch (e) {
      text = errorMessage(e);
    }
    if (text) this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${text}\n` } });
    await this.flush();
    return { stopReason: "end_turn" };
  }

  /**
   * A built-in command (core/host/commands, the dispatcher every front end
   * uses): its answer as a message, updates for what it changed, then end_turn.
   */
  private async command(text: string): Promise<acp.PromptResponse> {
    this.prompting = true;
    try {
      const r = await dispatch({ surface: "acp", host: this.host }, text);
      if (r?.changed === "mode") this.send({ sessionUpdate: "current_mode_update", currentModeId: this.mode });
      if (r?.changed === "mode" || r?.changed === "model" || r?.changed === "effort") this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
      if (r) this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: resultText(r) } });
      await this.flush();
      return { stopReason: "end_turn" };
    } finally {
      this.prompting = false;
    }
  }

  cancel(): void {
    this.live.cancel();
  }

  private openBash: string[] = [];

  /** The running bash call went to a client terminal: embed it in the call so the editor shows it live. */
  terminalStarted(terminalId: string): void {
    const callId = this.openBash[0];
    if (callId) this.send({ sessionUpdate: "tool_call_update", toolCallId: callId, status: "in_progress", content: [{ type: "terminal", terminalId }] });
  }

  steer(blocks: acp.ContentBlock[]): SteerDisposition {
    const text = promptText(blocks);
    if (shellLine(text) !== undefined) throw RequestError.invalidRequest({ sessionId: this.id }, this.busy ? SHELL_LINE_BUSY : "a shell line (!command) is a prompt, not guidance: send it with session/prompt");
    // While a prompt is being set up (before the engine turn starts) the guidance is queued
    // for that turn's first step: the round takes it, so it counts as accepted.
    // A prompt's turn that is finishing: the prompt runs one more turn with it before it returns.
    if (this.lateSteers && !this.live.takesSteering && text.trim()) {
      this.lateSteers.push(text);
      return "steer_accepted";
    }
    const d = this.host.steer(text);
    return this.prompting ? "steer_accepted" : d;
  }

  async setMode(modeId: string, field = "modeId"): Promise<void> {
    if (!modeSelectable(this.mode, modeId)) throw RequestError.invalidParams({ field }, `${field}: unknown mode ${JSON.stringify(modeId)} (${SELECTABLE_MODES.join(", ")})`);
    this.host.setMode(modeId);
    this.send({ sessionUpdate: "current_mode_update", currentModeId: modeId });
    this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    await this.flush();
  }

  async setModel(modelId: string, field = "modelId"): Promise<void> {
    if (!this.engine.models().some((m) => m.name === modelId)) {
      throw RequestError.invalidParams({ field }, `${field}: unknown model ${JSON.stringify(modelId)} (known: ${this.engine.models().map((m) => m.name).join(", ")})`);
    }
    if (this.busy) throw RequestError.invalidRequest({ sessionId: this.id }, "cannot switch the model while a prompt is running");
    if (modelId === this.model) return;
    await this.host.switchModel(modelId);
    this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    await this.flush();
  }

  private get effort(): string { return this.host.effort ?? "default"; }

  async setEffort(value: string, field = "value"): Promise<void> {
    if (!(EFFORT_VALUES as readonly string[]).includes(value)) {
      throw RequestError.invalidParams({ field }, `${field}: unknown reasoning effort ${JSON.stringify(value)} (${EFFORT_VALUES.join(", ")})`);
    }
    try {
      this.host.setEffort(value === "default" ? undefined : value);
    } catch (e) {
      throw RequestError.invalidParams({ field }, `${field}: ${errorMessage(e)}`);
    }
    this.send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    await this.flush();
  }

  configOptions(): acp.SessionConfigOption[] {
    return configOptions(this.mode, this.model, this.engine.models(), this.effort);
  }

  /** The mode/model/config block of session/new, load and resume answers. */
  state() {
    return { modes: modeStateOf(this.mode), models: modelState(this.model, this.engine.models()), configOptions: this.configOptions() };
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.live.close();
    if (this.ownEngine) await this.engine.close();
  }
}
