/**
 * `toolgate agent "TASK"`: run an agent in the terminal against an OpenAI-compatible model
 * endpoint. Each tool call and a short result line go to stderr, confirmations and questions
 * are asked on the terminal, and the final answer goes to stdout.
 *
 * ```
 * toolgate agent "TASK" [--agent general|explore|plan] [--model M] [--base-url U]
 *                [--model-class vision|text-only] [--workspace DIR] [--yes] [--max-rounds N] [--plan-dir DIR] [--lazy-domains]
 *                [--tools DIR... --schemas FILE] [--log-level LEVEL]
 * ```
 * The endpoint comes from `--base-url` or `OPENAI_BASE_URL`, the key from `OPENAI_API_KEY`,
 * the model from `--model`, `TOOLGATE_MODEL` or `OPENAI_MODEL`, its class (which image tool it
 * is offered) from `--model-class` or `TOOLGATE_MODEL_CLASS` (default `vision`).
 *
 * Exit codes: 0 the agent answered; 1 it stopped without an answer (round limit, model
 * error); 2 usage error or no model endpoint configured; 130 interrupted (Ctrl-C).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { BaseAgent, ExploreAgent, GeneralAgent, PlanAgent, type AgentEvent, type AgentOptions } from '../agents/base-agent.js';
import { modelEndpointFromEnv, OpenAIChatModel } from '../agents/model-client.js';
import { isModelClass } from '../types/model-class.js';
import type { QuestionHandler, UserQuestion } from '../system/tool-call-handler.js';
import { ToolDefinitionError } from '../errors/errors.js';
import type { ApprovalAnswer, ConfirmationContext, ConfirmationRequest } from '../decisions/approval.js';
import type { LevelWithSilent } from '../logging/logger.js';
import { loadConfig } from '../mcp/config.js';
import { APPROVE_FLAGS, approvalOption, COCKPIT_FLAGS, LEDGER_FLAGS, storeOrLedgerOption, policyOption, LOG_LEVELS, refuseLocalFlags, SANDBOX_FLAGS, sandboxOptions, UsageError, type CliContext, type CliIo } from './context.js';
import { askUntilAnswered, terminalSafe } from './terminal.js';
import { cliToolSystem } from './tool-system.js';
import { COCKPIT_FLAGS_USAGE } from './usage.js';
import { ledgerQuestionHandler } from '../ledger/user-questions.js';

/** Usage of `toolgate agent`. */
const AGENT_USAGE = `Usage:
  toolgate agent "TASK" [--agent general|explore|plan] [--model M] [--base-url U]
                 [--model-class vision|text-only] [--workspace DIR] [--yes] [--max-rounds N] [--plan-dir DIR] [--lazy-domains]
                 [--approve allow-all|deny-all|read-only|always-ask] [--state-dir DIR] [--no-ledger]
                 [--tools DIR... --schemas FILE] [--config FILE] [--log-level LEVEL]
                 [--sandbox workspace-write|read-only] [--sandbox-network] [--dangerously-disable-sandbox]
                 [--cockpit [--cockpit-port N] [--cockpit-host ADDR]]

Runs an agent on TASK with the tools, against an OpenAI-compatible chat completions endpoint:
  --base-url or OPENAI_BASE_URL   e.g. http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:11434/v1 (Ollama)
  OPENAI_API_KEY                  the key (local servers usually need none)
  --model, TOOLGATE_MODEL or OPENAI_MODEL   the model name
  --model-class or TOOLGATE_MODEL_CLASS     vision (default: offered read_image) or text-only
                                            (offered describe_image, see docs/image-tools.md)
--agent: general (default mode: every tool, writes ask for confirmation), explore (read-only),
plan (read-only, may write its plan inside --plan-dir, default plans/).
--yes approves every tool call that asks for confirmation, except the questions only a person
answers (a protected path: .git, .toolgate, toolgate's own files), still asked on the terminal.
Without --yes, confirmations and the model's questions are asked on the terminal; with no
terminal, such calls are refused and the model is told so. --approve sets the approval mode (see toolgate help).
MCP servers named in --config FILE (for example the workspace's toolgate.config.json) are bridged in.
--max-rounds N stops after N model calls (default 32). --lazy-domains offers the tools of a domain
(git, archive, data, snapshot) only after the model asks for it with request_tools.
With --cockpit, confirmations and the model's questions are answered in the cockpit page
(the terminal is not asked):
${COCKPIT_FLAGS_USAGE}
Tool calls are shown on stderr; the final answer is printed on stdout.
Exit codes: 0 answered, 1 stopped without an answer, 2 usage or no endpoint, 130 interrupted.`;

/**
 * Run `toolgate agent`; the endpoint variables are read from the context's environment.
 * @param argv - arguments after `agent`.
 * @returns the exit code.
 */
export async function agentCommand(argv: string[], ctx: CliContext): Promise<number> {
  const io = ctx;
  const usage = (message: string) => {
    io.stderr.write(`toolgate agent: ${message}\n\n${AGENT_USAGE}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        agent: { type: 'string' }, model: { type: 'string' }, 'model-class': { type: 'string' }, 'base-url': { type: 'string' }, workspace: { type: 'string' },
        yes: { type: 'boolean', short: 'y' }, 'max-rounds': { type: 'string' }, 'plan-dir': { type: 'string' }, 'lazy-domains': { type: 'boolean' },
        tools: { type: 'string', multiple: true }, schemas: { type: 'string' }, config: { type: 'string' }, 'log-level': { type: 'string' }, help: { type: 'boolean', short: 'h' },
        ...SANDBOX_FLAGS,
        ...APPROVE_FLAGS,
        ...LEDGER_FLAGS,
        ...COCKPIT_FLAGS,
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${AGENT_USAGE}\n`);
    return 0;
  }
  const task = positionals.join(' ').trim();
  if (task === '') return usage('give the TASK, quoted as one argument');
  const kind = values.agent ?? 'general';
  if (!['general', 'explore', 'plan'].includes(kind)) return usage(`--agent must be general, explore or plan; got ${kind}`);
  const modelClass = values['model-class'] ?? (ctx.env.TOOLGATE_MODEL_CLASS?.trim() || undefined);
  if (modelClass !== undefined && !isModelClass(modelClass)) return usage(`--model-class (or TOOLGATE_MODEL_CLASS) must be vision or text-only; got ${modelClass}`);
  let maxToolRounds: number | undefined;
  if (values['max-rounds'] !== undefined) {
    maxToolRounds = Number(values['max-rounds']);
    if (!Number.isInteger(maxToolRounds) || maxToolRounds < 1) return usage(`--max-rounds must be a positive integer; got ${values['max-rounds']}`);
  }
  let sandbox;
  let approvalMode;
  let ledger;
  try {
    refuseLocalFlags(values, 'agent');
    sandbox = sandboxOptions(values, ctx);
    approvalMode = approvalOption(values);
    ledger = storeOrLedgerOption(values, ctx, path.resolve(ctx.cwd, values.workspace ?? '.'));
  } catch (error) {
    return usage((error as Error).message);
  }
  const level = values['log-level'] ?? 'error';
  if (!LOG_LEVELS.has(level)) return usage(`--log-level must be one of ${[...LOG_LEVELS].join(', ')}; got ${level}`);
  const workspace = path.resolve(ctx.cwd, values.workspace ?? '.');
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) return usage(`--workspace ${workspace} is not a folder`);
  if (values.tools?.length && values.schemas === undefined) return usage('--tools needs --schemas FILE (generate it with `toolgate schemas`)');
  const found = modelEndpointFromEnv(ctx.env, { baseURL: values['base-url'], model: values.model });
  if (!found.ok) {
    io.stderr.write(`toolgate agent: no model endpoint configured. Set:\n${found.missing.map((m) => `  - ${m}`).join('\n')}\n`);
    return 2;
  }

  try {
    // A bad or missing config file is a usage error, before the model is asked.
    loadConfig(values.config === undefined ? undefined : path.resolve(ctx.cwd, values.config), workspace);
  } catch (error) {
    return usage((error as Error).message.replace(/^options\./, ''));
  }
  // The config file's MCP servers come in with the CLI's guard against a config that bridges itself.
  const tools = cliToolSystem(values, ctx, {
    workspace,
    logLevel: level as LevelWithSilent,
    // Whole outputs would be kept in a temporary folder removed at exit: keep them in the
    // ledger (the temporary folder only carries them there), else none.
    executor: { ...sandbox, approvalMode, policy: policyOption(values, ctx), outputStore: ledger === false ? false : {}, ...(typeof ledger === 'string' ? {} : { ledger }) },
    ...(typeof ledger === 'string' ? { store: ledger } : {}), runTasks: true,
  });
  const withCockpit = values.cockpit === true;
  if (!withCockpit && (values['cockpit-port'] !== undefined || values['cockpit-host'] !== undefined)) return usage('--cockpit-port and --cockpit-host need --cockpit');
  if (withCockpit && ledger === false) return usage('--cockpit reads the ledger: --no-ledger does not apply');
  // With the cockpit, people answer there: the terminal is not asked.
  const interactive = io.stdin.isTTY === true && !withCockpit;
  const tty = interactive ? new TerminalAsker(io) : undefined;
  let stopCockpit: (() => Promise<void>) | undefined;
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  ctx.signal?.addEventListener('abort', onSigint, { once: true });
  try {
    try {
      await tools.start();
    } catch (error) {
      if (error instanceof ToolDefinitionError) return usage(error.message);
      throw error;
    }
    let questionHandler: QuestionHandler | undefined = tty ? (question) => tty.ask(question) : undefined;
    // With --yes the terminal is still asked what only a person answers (a protected path).
    let confirmationHandler: AgentOptions['confirmationHandler'] = tty ? (request, context) => tty.confirm(request, context) : undefined;
    if (withCockpit) {
      try {
        stopCockpit = await (await import('./cockpit-command.js')).cockpitAlongside(values, ctx, ledger, tools.logger);
      } catch (error) {
        if (error instanceof UsageError) return usage(error.message);
        throw error;
      }
      // The questions are stored in the ledger and answered in the cockpit: this handler only waits.
      // (with --yes, only the questions a person must answer: a protected path's)
      confirmationHandler = () => new Promise<ApprovalAnswer>(() => undefined);
      questionHandler = ledgerQuestionHandler(tools.executor.ledger!, { workspace });
    }
    const options: AgentOptions = {
      tools,
      model: new OpenAIChatModel({ ...found.endpoint, modelClass }),
      autoConfirmTools: values.yes === true,
      confirmationHandler,
      questionHandler,
      maxToolRounds,
      // --max-rounds is the run's bound: the model-call cap (default 32) follows it.
      maxModelCalls: maxToolRounds,
      // Tools of a domain (git, archive, data, snapshot) are offered once the model asks (request_tools).
      lazyDomains: values['lazy-domains'] === true,
      onEvent: (event) => show(io, event),
    };
    const agent: BaseAgent = kind === 'explore' ? new ExploreAgent(options) : kind === 'plan' ? new PlanAgent({ ...options, planDir: values['plan-dir'] }) : new GeneralAgent(options);
    let run;
    try {
      run = await agent.run(task, { signal: controller.signal });
    } catch (error) {
      io.stderr.write(`toolgate agent: the model request failed (${found.endpoint.baseURL ?? 'api.openai.com'}, model ${found.endpoint.model}): ${terminalSafe((error as Error)?.message ?? String(error), false)}\n`);
      return 1;
    }
    if (run.stopReason === 'aborted') {
      io.stderr.write('toolgate agent: interrupted.\n');
      return 130;
    }
    const text = (io.stdout as { isTTY?: boolean }).isTTY ? terminalSafe(run.text) : run.text;
    if (text !== '') io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    if (run.stopReason === 'max_tool_rounds') {
      io.stderr.write(`toolgate agent: stopped after ${run.toolRounds} rounds of tool calls without a final answer (raise --max-rounds).\n`);
      return 1;
    }
    if (run.stopReason === 'max_model_calls') {
      io.stderr.write(`toolgate agent: stopped after ${run.toolRounds} rounds of tool calls (the turn's limit of 32 model calls) without a final answer (set --max-rounds).\n`);
      return 1;
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
    ctx.signal?.removeEventListener('abort', onSigint);
    tty?.close();
    await stopCockpit?.();
    await tools.close();
  }
}

/** One line for a tool call, one for its result, on stderr. */
function show(io: CliIo, event: AgentEvent): void {
  const line = (text: string) => io.stderr.write(`${terminalSafe(text, false)}\n`);
  switch (event.type) {
    case 'assistant':
      if (event.message.tool_calls?.length && event.message.content?.trim()) line(`[model] ${clipLine(event.message.content, 300)}`);
      break;
    case 'tool_call': {
      const args = typeof event.call.arguments === 'string' ? event.call.arguments : JSON.stringify(event.call.arguments) ?? '';
      line(`[tool] ${event.call.name} ${clipLine(args, 200)}`);
      break;
    }
    case 'tool_result': {
      const { result } = event;
      const text = result.success ? result.output : result.error ?? result.output;
      line(`  ${result.success ? 'ok' : result.errorCode ?? 'error'}: ${clipLine(text, 160)}`);
      break;
    }
    default:
      break;
  }
}

/** The first line of `text`, at most `max` characters, with a note of what was left out. */
function clipLine(text: string, max: number): string {
  const lines = text.split('\n');
  let first = lines[0]!;
  const more = lines.length > 1 && lines.slice(1).some((l) => l.trim() !== '');
  if (first.length > max) first = `${first.slice(0, max)}...`;
  return more ? `${first} (+${lines.length - 1} lines)` : first;
}

/** Asks on the terminal, one question at a time (the handler serialises them too). */
class TerminalAsker {
  private readonly rl: readline.Interface;

  constructor(private readonly io: CliIo) {
    this.rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  }

  /** Ask; stops asking when the question is answered elsewhere (the context's signal). */
  async confirm(request: ConfirmationRequest, context?: ConfirmationContext): Promise<ApprovalAnswer> {
    const signal = context?.signal;
    try {
      const question = (prompt: string) => this.rl.question(prompt, signal === undefined ? {} : { signal });
      return await askUntilAnswered(question, this.io.stderr, request, context, { command: (id) => `toolgate approvals allow ${id}` });
    } catch (error) {
      if (!signal?.aborted) throw error;
      this.io.stderr.write('(answered elsewhere)\n');
      return 'deny';
    }
  }

  async ask(question: UserQuestion): Promise<string | string[]> {
    const lines = [`The agent asks: ${terminalSafe(question.question, false)}`];
    question.choices?.forEach((c, i) => lines.push(`  ${i + 1}. ${terminalSafe(c, false)}`));
    const hint = question.choices ? (question.multi ? 'numbers separated by commas, or text' : 'a number, or text') : 'text';
    const answer = (await this.rl.question(`${lines.join('\n')}\nAnswer (${hint}): `)).trim();
    if (!question.choices) return answer;
    const picks = answer.split(/[\s,]+/).filter(Boolean);
    const chosen = picks.map((p) => (/^\d+$/.test(p) ? question.choices![Number(p) - 1] : undefined));
    if (picks.length && chosen.every((c) => c !== undefined) && (question.multi || chosen.length === 1)) return question.multi ? (chosen as string[]) : chosen[0]!;
    return answer;
  }

  close(): void {
    this.rl.close();
  }
}
