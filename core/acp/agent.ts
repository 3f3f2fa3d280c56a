/**
 * `reasonix acp`: the ACP v1 agent over one JSON-RPC connection (stdio in
 * production, in-memory streams in tests). Built on the SDK's agent app,
 * which frames messages and answers malformed JSON, unknown methods and
 * schema-invalid params; the handlers here are a thin adapter over the
 * engine contract (core/engine/types.ts).
 */
import * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { errorMessage } from "../errors.ts";
import type { AgentConnection } from "@agentclientprotocol/sdk";
import { buildInfo } from "../version.ts";
import type { AcpLog } from "./log.ts";
import { availableCommands } from "./commands.ts";
import { warmPromptPath } from "./warm.ts";
import { AcpSession } from "./session.ts";
import { GOAL_CONTROLS, GOAL_METHOD, goalMethodParams } from "./goal.ts";
import { guardBatches } from "./batch-guard.ts";
import { canElicit } from "./elicitation.ts";
import { defaultModelVision } from "./images.ts";
import { toRequestError } from "./errors.ts";
import { Workspaces, type WorkspaceOptions } from "./workspaces.ts";
import { loadSessionParams, newSessionParams, resumeSessionParams } from "./session-params.ts";
import { traceMark } from "../trace.ts";

export const STEER_METHOD = "_reasonix.io/session/steer";
export const SET_MODEL_METHOD = "session/set_model";

export interface AcpAgentOptions extends WorkspaceOptions {
  log: AcpLog;
}

/** Parsers for the two methods the SDK has no schema for; errors name the field. */
const field = (p: unknown, name: string, kind: "string" | "array"): unknown => {
  const v = (p as Record<string, unknown> | null)?.[name];
  const ok = kind === "array" ? Array.isArray(v) : typeof v === "string" && v !== "";
  if (!ok) throw RequestError.invalidParams({ field: name }, `${name} must be ${kind === "array" ? "a list of content blocks" : "a non-empty string"}`);
  return v;
};
const steerParams = (p: unknown) => ({ sessionId: field(p, "sessionId", "string") as string, prompt: field(p, "prompt", "array") as acp.ContentBlock[] });
const setModelParams = (p: unknown) => ({ sessionId: field(p, "sessionId", "string") as string, modelId: field(p, "modelId", "string") as string });

/**
 * How a client gets Reasonix a model: `reasonix setup` in a terminal when the
 * client can run one for the user, else the same advice as text.
 */
export function authMethods(caps: acp.ClientCapabilities): acp.AuthMethod[] {
  const setup = "Configure a model provider with `reasonix setup` (it writes [[providers]] to ~/.reasonix/config.toml and the key to ~/.reasonix/.env), then start a new session.";
  const methods: acp.AuthMethod[] = [];
  if (caps.auth?.terminal) methods.push({ id: "reasonix-setup", name: "Set up a model provider", description: setup, type: "terminal", args: ["setup"] } as acp.AuthMethod);
  methods.push({ id: "reasonix-config", name: "Configure a model provider", description: setup });
  return methods;
}

export function createAcpAgent(opts: AcpAgentOptions): { app: acp.AgentApp; shutdown(): Promise<void> } {
  const { log } = opts;
  const sessions = new Map<string, AcpSession>();
  const workspaces = new Workspaces(opts, log);
  workspaces.onTerminal = (sessionId, terminalId) => sessions.get(sessionId)?.terminalStarted(terminalId);
  let clientCaps: acp.ClientCapabilities = {};

  const port = (ctx: acp.AgentContext) => {
    return {
      notify: (p: acp.SessionNotification) => ctx.notify(acp.methods.client.session.update, p),
      requestPermission: (p: acp.RequestPermissionRequest) => ctx.request(acp.methods.client.session.requestPermission, p),
      ...(canElicit(clientCaps) ? { elicit: (p: acp.CreateElicitationRequest) => ctx.request(acp.methods.client.elicitation.create, p) } : {}),
      log,
    };
  };

  const get = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw RequestError.invalidParams({ field: "sessionId" }, `sessionId: no open session ${JSON.stringify(id)} (session/new, session/load or session/resume first)`);
    return s;
  };


  /** Open (or reuse) a stored session in this connection. */
  const open = async (ctx: acp.AgentContext, id: string, cwd: string | undefined, mcpServers?: acp.McpServer[] | null): Promise<AcpSession> => {
    const have = sessions.get(id);
    // Already open here: the same session, so the same workspace, or a clear no.
    if (have) return (workspaces.sameWorkspace(id, have.workspace, cwd), have);
    const ws = await workspaces.forSession(id, cwd, mcpServers);
    let live;
    try {
      live = await ws.engine.resumeSession(id);
    } catch (e) {
      if (ws.own) await ws.engine.close().catch(() => {});
      throw toRequestError(e, "sessionId");
    }
    const s = new AcpSession(live, ws.engine, { ...port(ctx) }, ws.mode);
    s.ownEngine = !!ws.own;
    sessions.set(id, s);
    return s;
  };

  const announce = (s: AcpSession) => {
    // After the answer: clients learn the session id from it before updates arrive.
    const list = () => availableCommands(s.workspace, opts.home, log, s.engine);
    let sent = "";
    const send = () => {
      const now = list();
      if (JSON.stringify(now) === sent) return;
      sent = JSON.stringify(now);
      s.send({ sessionUpdate: "available_commands_update", availableCommands: now });
    };
    setTimeout(send, 0);
    // Once the MCP servers are up, again with their prompts (only if the list changed).
    void s.engine.mcpStarted().then(() => setTimeout(send, 0), () => {});
  };

  let warmed = false;
  const app = acp
    .agent({ name: "reasonix" })
    .onRequest(acp.methods.agent.initialize, ({ params, client: ctx }) => {
      clientCaps = params.clientCapabilities ?? {};
      workspaces.setClient(ctx, clientCaps);
      // Once, after this answer: the first prompt's schema check, built ahead (core/acp/warm.ts).
      if (!warmed) {
        warmed = true;
        setTimeout(() => void warmPromptPath().catch((e) => log.info(`warm-up skipped: ${errorMessage(e)}`)), 0);
      }
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: { name: "reasonix", title: "Reasonix", version: buildInfo().version },
        agentCapabilities: {
          loadSession: true,
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
          // Pictures when the model new sessions start with accepts them (a prompt for another model is refused, naming it).
          promptCapabilities: { image: defaultModelVision(opts.home), audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          _meta: { "reasonix.io": { sessionSteer: { method: STEER_METHOD }, sessionGoal: { method: GOAL_METHOD, actions: [...GOAL_CONTROLS] } } },
        },
        authMethods: authMethods(clientCaps),
      };
    })
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    .onRequest(acp.methods.agent.session.new, newSessionParams, async ({ params, client: ctx }) => {
      const ws = await workspaces.forCwd(params.cwd, params.mcpServers);
      let live;
      try {
        live = await ws.engine.createSession();
      } catch (e) {
        if (ws.own) await ws.engine.close().catch(() => {});
        throw toRequestError(e);
      }
      const s = new AcpSession(live, ws.engine, { ...port(ctx) }, ws.mode);
      s.ownEngine = !!ws.own;
      sessions.set(s.id, s);
      log.info(`session ${s.id} in ${s.workspace}`);
      announce(s);
      return { sessionId: s.id, ...s.state() } as acp.NewSessionResponse;
    })
    .onRequest(acp.methods.agent.session.load, loadSessionParams, async ({ params, client: ctx }) => {
      const s = await open(ctx, params.sessionId, params.cwd, params.mcpServers);
      await s.replay();
      announce(s);
      return s.state() as acp.LoadSessionResponse;
    })
    .onRequest(acp.methods.agent.session.resume, resumeSessionParams, async ({ params, client: ctx }) => {
      const s = await open(ctx, params.sessionId, params.cwd, params.mcpServers);
      announce(s);
      return s.state() as acp.ResumeSessionResponse;
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const list = workspaces.list(params.cwd ?? undefined);
      return { sessions: list.map((x) => ({ sessionId: x.id, cwd: x.workspace, title: x.title, updatedAt: x.updatedAt })) };
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const s = get(params.sessionId);
      sessions.delete(s.id);
      await s.close();
      return {};
    })
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s) {
        sessions.delete(s.id);
        await s.close();
      }
      await workspaces.deleteSession(params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await get(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const s = get(params.sessionId);
      const value = (params as { value: unknown }).value;
      if (typeof value !== "string") throw RequestError.invalidParams({ field: "value" }, "value must be a string");
      if (params.configId === "mode") await s.setMode(value, "value");
      else if (params.configId === "model") await s.setModel(value, "value");
      else if (params.configId === "reasoning_effort") await s.setEffort(value, "value");
      else throw RequestError.invalidParams({ field: "configId" }, `configId: unknown option ${JSON.stringify(params.configId)} (mode, model, reasoning_effort)`);
      return { configOptions: s.configOptions() };
    })
    .onRequest(SET_MODEL_METHOD, setModelParams, async ({ params }) => {
      await get(params.sessionId).setModel(params.modelId);
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => get(params.sessionId).prompt(params.prompt))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(STEER_METHOD, steerParams, ({ params }) => {
      const disposition = get(params.sessionId).steer(params.prompt);
      return { disposition };
    })
    .onRequest(GOAL_METHOD, goalMethodParams, ({ params }) => ({ ...get(params.sessionId).goalControl(params.action) }));

  return {
    app,
    async shutdown() {
      await Promise.all([...sessions.values()].map((s) => s.close().catch(() => {})));
      sessions.clear();
      await workspaces.close();
    },
  };
}

/** Serve one client on a byte stream pair (stdin/stdout). Resolves when the client hangs up. */
export async function serveAcp(input: ReadableStream<Uint8Array>, output: WritableStream<Uint8Array>, opts: AcpAgentOptions): Promise<void> {
  const { app, shutdown } = createAcpAgent(opts);
  const conn: AgentConnection = app.connect(acp.ndJsonStream(output, guardBatches(input)));
  traceMark("acp:connected");
  await conn.closed.catch((e) => opts.log.error(`connection closed: ${errorMessage(e)}`));
  await shutdown();
}
