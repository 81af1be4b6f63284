import { tool } from './tool.js';

/** Say hello; the arguments are an inline type literal with TSDoc on its fields. */
@tool({ name: 'say_hello', version: '1.0.0' })
export class SayHelloTool {
  async run(args: {
    /** Who to greet. */
    who: string;
    /** How loud. */
    volume?: 'quiet' | 'loud';
    /** Where. */
    place: {
      /** The city. */
      city: string;
    };
  }): Promise<string> {
    return `hello ${args.who}`;
  }
}

export const valid: unknown[] = [{ who: 'a', place: { city: 'b' } }];
export const invalid: unknown[] = [{ who: 'a' }, { who: 'a', place: { city: 1 } }];
