import { tool } from './tool.js';

/** A base class that holds run, generic in its arguments. */
export abstract class EchoBase<T> {
  async run(args: T): Promise<string> {
    return JSON.stringify(args);
  }
}

export interface GreetInput {
  /** Who to greet. */
  who: string;
}

/** Greet someone: run is inherited from the base class. */
@tool({ name: 'greet_inherited', version: '1.0.0' })
export class GreetInheritedTool extends EchoBase<GreetInput> {}

export const valid: GreetInput[] = [{ who: 'you' }];
export const invalid: unknown[] = [{}];
