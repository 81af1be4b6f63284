/**
 * Tools with an output projection that run in workers (the process and pool runners), for
 * projection.test.ts. Outside test/fixtures on purpose: they are registered with their
 * schema by the test, not through the generated fixture schema file.
 */
import { tool, type Tool } from 'toolgate/tool';

/** Long output: 100 lines. */
export function longOutput(): string {
  return Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(20)}`).join('\n');
}

const countLines = (text: string) => `${text.split('\n').length} lines`;

/** Long output summarized for the model, in a child process. */
@tool({ name: 'summarized_in_process', version: '1.0.0', kind: 'internal', readOnly: true, maxOutputLength: 200, runner: 'process', output: { model: countLines } })
export class SummarizedInProcessTool implements Tool<Record<string, never>, string> {
  run(): string {
    return longOutput();
  }
}

/** Long output summarized for the model, in a worker thread. */
@tool({ name: 'summarized_in_pool', version: '1.0.0', kind: 'internal', readOnly: true, maxOutputLength: 200, runner: 'pool', output: { model: countLines } })
export class SummarizedInPoolTool implements Tool<Record<string, never>, string> {
  run(): string {
    return longOutput();
  }
}

/** Long output cut head-and-tail in the worker (a string `model` is the truncation). */
@tool({ name: 'head_tail_in_pool', version: '1.0.0', kind: 'internal', readOnly: true, maxOutputLength: 200, runner: 'pool', output: { model: 'head-tail' } })
export class HeadTailInPoolTool implements Tool<Record<string, never>, string> {
  run(): string {
    return longOutput();
  }
}
