/**
 * The usage text of every `toolgate` command, apart from the commands themselves: `toolgate
 * help` (and an unknown command's hint) prints it without loading a single command module.
 *
 * @module
 */
import { QUEUE_URL_FORMS } from '../distributed/queue-backends.js';

/** Usage lines of `toolgate list`. */
const LIST_USAGE = '  toolgate list [--tag T]... [--domain D]... [--json]';

/** Usage lines of `toolgate schema`. */
const SCHEMA_USAGE = '  toolgate schema NAME [--version RANGE] [--format openai|openai-strict|anthropic|mcp]';

/** Usage lines of `toolgate call`. */
const CALL_USAGE = `  toolgate call NAME [ARGS_JSON|-] [--version RANGE] [--workspace DIR]
                [--mode default|explore|plan] [--scoped-write DIR]... [--yes]
                [--approve allow-all|deny-all|read-only|always-ask] [--no-policy] [--explain]
                [--timeout-ms N] [--output-dir DIR] [--json] [--stream]
                [--call-id ID] [--session S] [--state-dir DIR] [--no-ledger]
                [--sandbox workspace-write|read-only] [--sandbox-network]
                [--dangerously-disable-sandbox]
               (the same --call-id and --session again print the stored result, never
               run twice; default session cli; each call is a session of its own in
               the cockpit); --stream writes the tool's progress and log messages on
               stderr as they come (a terminal shows a live line without it)`;

/** Usage lines of `toolgate schemas`. */
const SCHEMAS_USAGE = '  toolgate schemas PATTERN... --out FILE [--check] [--tsconfig FILE]';

/** Usage lines of `toolgate mcp`, for the CLI's help. */
const MCP_USAGE = `  toolgate mcp [--http [--port N] [--host ADDR] [--no-token] [--max-sessions N]
               [--session-idle-ms MS] [--poll-after-ms MS]] [--workspace DIR]
               [--mode default|explore|plan] [--scoped-write DIR]... [--tool NAME]...
               [--tag T]... [--yes] [--approve allow-all|deny-all|read-only|always-ask]
               [--state-dir DIR] [--no-ledger] [--sandbox workspace-write|read-only]
               [--sandbox-network] [--dangerously-disable-sandbox] [--cockpit [--cockpit-port N]]
               [--lazy-domains [--tag-domain TAG=DOMAIN]...]
               serve the tools as an MCP server over stdio, or streamable HTTP on
               http://127.0.0.1:N/mcp (loopback unless --host; requests from web pages
               of other sites are refused; every request sends "Authorization:
               Bearer TOKEN", TOKEN from TOOLGATE_MCP_TOKEN or made at each start and
               printed on stderr; --no-token: none, loopback only); --yes approves calls
               that need confirmation (not a protected path's question, which a person
               answers), else the client is asked (elicitation) or they are denied; HTTP keeps at most --max-sessions sessions (default 100)
               and closes one idle for --session-idle-ms (default 1800000, 30 min);
               --lazy-domains lists tools with a domain only after the client's
               request_tools asks for it (--tag-domain puts a tag's tools in a domain)
  toolgate mcp login SERVER --config FILE [--state-dir DIR]
               authorize toolgate at a bridged MCP server that uses OAuth: prints the
               URL to open, waits for the browser's redirect on loopback, keeps the
               tokens in the state folder (mode 0600; docs/mcp.md)
`;
/** Usage lines of `toolgate policy`. */
const POLICY_USAGE = `  toolgate policy check [--workspace DIR] [--explain CALL_JSON]
                (policy files: $XDG_CONFIG_HOME/toolgate/policy.toml, else
                ~/.config/toolgate/policy.toml, and DIR/.toolgate/policy.toml;
                CALL_JSON: '{"name":"write_file","arguments":{...}}')`;

/** Usage lines of `toolgate approvals`. */
const APPROVALS_USAGE = `  toolgate approvals [list] [--json] [--workspace DIR] [--state-dir DIR | --store FILE|URL]
  toolgate approvals show ID [--json] [--workspace DIR] [--state-dir DIR | --store FILE|URL]
  toolgate approvals allow|deny ID [--workspace DIR] [--state-dir DIR | --store FILE|URL] [--no-policy]
               the questions waiting in the workspace's ledger (also one answered that its
               asker died before acting on); show one with every argument whole (list cuts
               long ones and says so); allow or deny one (the first answer counts; when
               the asking process is gone, the call runs here, once). list and show only read`;

/** Usage lines of `toolgate skills`. */
const SKILLS_USAGE = `  toolgate skills [list] [--json] [--workspace DIR]
  toolgate skills trust|untrust NAME [--workspace DIR] [--yes]
               the skills found (yours and the workspace's .toolgate/skills/), each with its
               content digest and whether it is trusted, untrusted or changed since trusted;
               trust shows a workspace skill's files and tools, then pins that content in
               skills-trust.json (a change to any file untrusts it; --yes off a terminal).
               No --state-dir: trust is configuration, kept in your config folder
               ($XDG_CONFIG_HOME/toolgate, else ~/.config/toolgate), which every command reads`;

/** Usage lines of `toolgate result`. */
const RESULT_USAGE = `  toolgate result CALL_ID [--session S] [--json] [--workspace DIR] [--state-dir DIR | --store FILE|URL]
               print the whole stored output of a call (the newest call with that id
               unless --session names one)`;

/** Usage lines of `toolgate trace`. */
const TRACE_USAGE = `  toolgate trace [--session S] [--call ID] [--limit N] [--json] [--workspace DIR]
               [--state-dir DIR | --store FILE|URL]
               every recorded call: state, decisions, timings, result status and size`;

/** Usage lines of {@link SANDBOX_FLAGS}. */
const SANDBOX_USAGE = `  --sandbox PROFILE  how run_command, exec_command and execute_python are confined:
                     workspace-write (default) or read-only; needs bubblewrap on Linux
  --sandbox-network  let sandboxed commands use the network (default: none)
  --dangerously-disable-sandbox
                     run those tools with no sandbox at all (the profile none); then
                     a line whose program the analysis cannot read (make, npm test,
                     ./run.sh) asks a person each time, not --yes, unless your policy
                     file allows that program by name; an interpreter's code
                     (python3 -c) always asks (docs/policy.md, "Without a sandbox")`;

/** Usage lines of {@link APPROVE_FLAGS}. */
const APPROVE_USAGE = `  --approve MODE     what a call no policy rule decided gets: allow-all (run it), deny-all
                     (refuse every call), read-only (run tools that only read, ask for the
                     rest) or always-ask (ask about every call); default: tools that declare
                     it ask. Protected paths and policy rules still apply
  --no-policy        read no policy file (default: the user's
                     $XDG_CONFIG_HOME/toolgate/policy.toml and the workspace's
                     .toolgate/policy.toml; see toolgate policy check)`;

/** Usage lines of {@link LEDGER_FLAGS}. */
const LEDGER_USAGE = `  --state-dir DIR    the folder of the call ledgers (one SQLite file per workspace), the
                     memory files and MCP OAuth tokens; default
                     $XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate
  --memory-workspace NAME  the workspace's identity for memory notes (default: its real
                     path); processes naming the same one on a store share the notes
  --no-ledger        record nothing (call, mcp, agent): no exactly-once, no durable
                     questions, no toolgate result / trace for these calls
  --store FILE|URL   the call store shared with workers (a SQLite file on one machine,
                     postgres://user@host/db across machines); approvals, result, trace
                     and cockpit take it too
  --queue URL        send calls to workers instead of running them here (the queue's server:
                     ${QUEUE_URL_FORMS}); a call that asks
                     waits for toolgate approvals allow
  --pool NAME        to this pool's workers (default: default); see toolgate worker
  --queue-wait-ms MS how long the queue's server is waited for, to connect and for each
                     call's job (default 30000); past it: QUEUE_UNAVAILABLE, exit 1`;

/** Usage lines of `toolgate worker`. */
const WORKER_USAGE = `  toolgate worker --store FILE|URL --queue URL [--workspace DIR] [--pool NAME]
               [--concurrency N] [--lease-ms MS] [--rate-limit-wait-ms MS] [--memory-workspace NAME]
               [sandbox options] [--no-policy] take the calls sent to the pool and run them in the
               workspace (decided again here: its policy files, protected paths, this registry); a
               call's lease (default 30000 ms) is renewed while the worker lives: a worker that dies
               leaves its calls interrupted, never run twice; a rate-limited tool's call waits up to
               --rate-limit-wait-ms (default 10000) for its turn (docs/distributed.md); SIGINT or
               SIGTERM stops it (exit 130, 143); the queue's URL:
               ${QUEUE_URL_FORMS}`;

/** The cockpit's port unless --port / --cockpit-port names another. */
export const DEFAULT_COCKPIT_PORT = 7357;

/** Usage lines of `toolgate cockpit`. */
const COCKPIT_USAGE = `  toolgate cockpit [--port N] [--host ADDR] [--workspace DIR] [--state-dir DIR | --store FILE|URL] [--no-policy]
               a web page on http://127.0.0.1:${DEFAULT_COCKPIT_PORT}/ for the workspace's ledger: answer the
               questions waiting (any toolgate process of the workspace), set each session's
               approval mode, watch the calls live, read whole outputs; open the address
               it prints (its #code= logs the page in, once; with TOOLGATE_COCKPIT_TOKEN,
               which any --host other than loopback needs, open it with #code=<token>)`;

/** Usage lines of the flags of `toolgate mcp` and `toolgate agent` that start a cockpit alongside. */
export const COCKPIT_FLAGS_USAGE = `  --cockpit          serve the cockpit page alongside (port ${DEFAULT_COCKPIT_PORT} unless --cockpit-port N,
                     loopback unless --cockpit-host ADDR with TOOLGATE_COCKPIT_TOKEN); open the
                     address it prints on stderr (its #code= logs the page in); questions
                     nobody else can answer wait for it there`;

/** Usage lines of `toolgate agent`. */
const AGENT_USAGE = `  toolgate agent "TASK" [--agent general|explore|plan] [--model M] [--base-url U]
                 [--workspace DIR] [--yes] [--max-rounds N] [--plan-dir DIR] [--lazy-domains]
                 (model endpoint: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL)`;

/** Options every command takes. */
const COMMON_USAGE = `Common options:
  --tools DIR        load compiled tools from DIR too (repeatable; needs --schemas)
  --schemas FILE     generated schema file of the --tools folders
  --log-level LEVEL  pino level on stderr (default error)
  --config FILE      toolgate config file whose mcpServers are bridged in as {server}__{tool}
                     and whose tools.builtin replaces the default tool set (docs/toolsets.md);
                     only a file named here is read (a workspace's own toolgate.config.json
                     must not start programs by itself)
  -h, --help         this help (also: toolgate help)
  --version          print toolgate's version`;

const ARGS_JSON_NOTE = `ARGS_JSON is one JSON object (quote it as one word), or - to read it from stdin; default {}.
The workspace defaults to the current folder.`;

const EXIT_CODES = 'Exit codes: 0 success, 1 tool failure or gate denial, 2 usage error, 3 path outside the workspace, 130 interrupted (Ctrl-C).';

/** The option sections of call, mcp and agent (sandbox, approval, ledger), with their headings. */
const RUN_SECTIONS = `Sandbox options:
${SANDBOX_USAGE}

Approval options:
${APPROVE_USAGE}

Ledger options:
${LEDGER_USAGE}`;

/**
 * Each command's own lines and the option sections that apply to it: `toolgate COMMAND --help`
 * (`agent` writes its own: `agent-command.ts`).
 */
const COMMAND_USAGE: Readonly<Record<string, string>> = Object.freeze({
  list: LIST_USAGE,
  schema: SCHEMA_USAGE,
  call: `${CALL_USAGE}\n\n${RUN_SECTIONS}\n\n${ARGS_JSON_NOTE}`,
  schemas: SCHEMAS_USAGE,
  mcp: `${MCP_USAGE}\n${RUN_SECTIONS}\n\nCockpit options:\n${COCKPIT_FLAGS_USAGE}`,
  policy: POLICY_USAGE,
  approvals: APPROVALS_USAGE,
  result: RESULT_USAGE,
  trace: TRACE_USAGE,
  cockpit: COCKPIT_USAGE,
  worker: WORKER_USAGE,
  skills: SKILLS_USAGE,
});

/**
 * The help of one command (`toolgate call --help`): its usage, the options that apply, the
 * common options and the exit codes; `undefined` for a name that is not a command.
 */
export function commandUsage(command: string): string | undefined {
  if (!Object.hasOwn(COMMAND_USAGE, command)) return undefined;
  return `Usage:\n${COMMAND_USAGE[command]!.replace(/\n+$/, '')}\n\n${COMMON_USAGE}\n\n${EXIT_CODES}\nEvery command: toolgate help.`;
}

/** The whole help text of `toolgate help`. */
export const USAGE = `Usage:
${LIST_USAGE}
${SCHEMA_USAGE}
${CALL_USAGE}
${SCHEMAS_USAGE}
${AGENT_USAGE}

${MCP_USAGE}
${POLICY_USAGE}
${APPROVALS_USAGE}
${SKILLS_USAGE}
${RESULT_USAGE}
${TRACE_USAGE}
${COCKPIT_USAGE}
${WORKER_USAGE}

${COMMON_USAGE}

Sandbox options of call, mcp and agent:
${SANDBOX_USAGE}

Approval options of call, mcp and agent:
${APPROVE_USAGE}

Ledger options of call, mcp and agent (approvals, result and trace take --state-dir):
${LEDGER_USAGE}
  --store URL        (approvals, result, trace, cockpit) a shared call store instead of the
                     workspace's ledger: postgres://user@host/db (the password from
                     PGPASSWORD or ~/.pgpass)

Cockpit options of mcp and agent:
${COCKPIT_FLAGS_USAGE}

${ARGS_JSON_NOTE}

${EXIT_CODES}`;
