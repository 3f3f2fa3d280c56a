/**
 * Git as Reasonix runs it: never trusting the configuration of a repository
 * the agent may have written. Every place Reasonix itself starts git (the
 * gitlink check after a command, read-only bash) takes its settings from here.
 *
 *   spawnSync("git", [...HOST_GIT_ARGS, "ls-files", …], { env: hostGitEnv(process.env, { ceiling }) })
 *   readOnlyGitPrelude()   // shell lines for a command line the read-only classifier accepted
 *
 * Configuration that makes git run a program is overridden from the command
 * line (`-c`, which wins over every config file) or by environment
 * (GIT_CONFIG_COUNT/KEY/VALUE, the same thing for a shell command line);
 * git's own variables from the environment are dropped; discovery stops at
 * the workspace's parent (GIT_CEILING_DIRECTORIES). An external diff program
 * and textconv drivers cannot be switched off by a setting (an empty
 * diff.external makes `git diff` fail): Reasonix's own git never diffs, and
 * read-only bash refuses --ext-diff/--textconv. The list is documented in
 * docs/sandbox.md ("Git run by Reasonix").
 */

/** Settings that would run a program, each set to something inert. */
export const NEUTRAL_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.sshCommand", "false"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["core.askPass", ""],
  ["core.alternateRefsCommand", ""],
  ["core.untrackedCache", "false"],
  ["sequence.editor", "false"],
  ["diff.noprefix", "false"],
  ["credential.helper", ""],
  ["gpg.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.x509.program", "false"],
  ["protocol.allow", "never"],
  ["protocol.ext.allow", "never"],
  ["protocol.file.allow", "never"],
  ["uploadpack.packObjectsHook", ""],
  ["submodule.recurse", "false"],
  ["status.submoduleSummary", "false"],
  ["diff.submodule", "short"],
  ["log.showSignature", "false"],
  ["pager.status", "false"],
  ["pager.log", "false"],
  ["pager.diff", "false"],
  ["pager.show", "false"],
];

/** Global options for host git: no pager, no replace refs, no optional locks, then the neutral config. */
export const HOST_GIT_ARGS: readonly string[] = [
  "--no-pager",
  "--no-replace-objects",
  "--no-optional-locks",
  ...NEUTRAL_GIT_CONFIG.flatMap(([k, v]) => ["-c", `${k}=${v}`]),
];

/** The environment for host git: `base` without any GIT_* variable, plus the neutral settings. */
export function hostGitEnv(base: NodeJS.ProcessEnv, opts: { ceiling?: string } = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    GIT_EDITOR: "false",
    GIT_SSH_COMMAND: "false",
    GIT_ASKPASS: "",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_ALLOW_PROTOCOL: "",
    GIT_ATTR_NOSYSTEM: "1",
    ...(opts.ceiling ? { GIT_CEILING_DIRECTORIES: opts.ceiling } : {}),
  });
  return env;
}

const shq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Shell lines run before a read-only command line: the neutral settings as
 * GIT_CONFIG_COUNT/KEY/VALUE (they win over every config file git reads), no
 * optional locks, no pager, and any GIT_* variable that redirects git unset.
 */
export function readOnlyGitPrelude(): string {
  const vars: string[] = [`GIT_CONFIG_COUNT=${NEUTRAL_GIT_CONFIG.length}`];
  NEUTRAL_GIT_CONFIG.forEach(([k, v], i) => vars.push(`GIT_CONFIG_KEY_${i}=${shq(k)}`, `GIT_CONFIG_VALUE_${i}=${shq(v)}`));
  return [
    "unset GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_EXEC_PATH GIT_EXTERNAL_DIFF GIT_NAMESPACE GIT_SSH GIT_SSH_COMMAND GIT_PAGER GIT_EDITOR GIT_TEMPLATE_DIR",
    `export ${vars.join(" ")} GIT_OPTIONAL_LOCKS=0 GIT_PAGER=cat GIT_TERMINAL_PROMPT=0 GIT_NO_REPLACE_OBJECTS=1`,
  ].join("\n");
}
