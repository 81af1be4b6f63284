import { tool } from './tool.js';

/** Refused: tool arguments are a JSON object, not a bare string. */
@tool({ name: 'shout_text', version: '1.0.0' })
export class ShoutTextTool {
  async run(text: string): Promise<string> {
    return text.toUpperCase();
  }
}
