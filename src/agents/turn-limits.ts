/**
 * Turn limits of an agent's run (one run is one turn): at most `maxModelCalls` requests to the
 * model, and at most `maxToolCallsPerResponse` tool calls of one model response run (in
 * order); the calls past that cap are answered `OVERLOADED` without running, so every call id
 * still gets a result.
 *
 * `maxToolRounds`, the older cap, counts the same thing in this loop (every model request but
 * the last answered with tool calls, so N rounds of tool calls are N model requests): it is
 * kept for callers that set it and stops the run with `max_tool_rounds`; without it, the run
 * is bounded by `maxModelCalls` alone and stops with `max_model_calls`.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';

/** Default of `maxModelCalls`: model requests of one turn at most. */
export const DEFAULT_MAX_MODEL_CALLS = 32;

/** Default of `maxToolCallsPerResponse`: tool calls of one model response that run at most. */
export const DEFAULT_MAX_TOOL_CALLS_PER_RESPONSE = 64;

/** The limits options of an agent. */
export interface TurnLimitOptions {
  maxModelCalls?: number;
  maxToolCallsPerResponse?: number;
  maxToolRounds?: number;
}

/** The limits of a run, checked. */
export interface TurnLimits {
  /** Model requests of one run at most. */
  maxModelCalls: number;
  /** Tool calls of one model response that run at most. */
  maxToolCallsPerResponse: number;
  /** Rounds of tool calls at most, when the caller set it; else `undefined`. */
  maxToolRounds: number | undefined;
}

/**
 * Check and complete the limits options.
 * @throws ToolgateOptionError naming the option when one is not a positive integer.
 */
export function turnLimits(options: TurnLimitOptions): TurnLimits {
  const positive = (name: keyof TurnLimitOptions, fallback: number | undefined): number | undefined => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) throw ToolgateOptionError.fromBadOption(name, `must be a positive integer; got ${value}`);
    return value;
  };
  return {
    maxModelCalls: positive('maxModelCalls', DEFAULT_MAX_MODEL_CALLS)!,
    maxToolCallsPerResponse: positive('maxToolCallsPerResponse', DEFAULT_MAX_TOOL_CALLS_PER_RESPONSE)!,
    maxToolRounds: positive('maxToolRounds', undefined),
  };
}

/**
 * Why the run stops after a model response whose tool calls ran, or `undefined` to go on.
 * @param modelCalls - model requests made so far in the run.
 * @param toolRounds - responses with tool calls so far.
 */
export function turnLimitReached(limits: TurnLimits, modelCalls: number, toolRounds: number): 'max_tool_rounds' | 'max_model_calls' | undefined {
  if (limits.maxToolRounds !== undefined && toolRounds >= limits.maxToolRounds) return 'max_tool_rounds';
  if (modelCalls >= limits.maxModelCalls) return 'max_model_calls';
  return undefined;
}
