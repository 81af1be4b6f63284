import { tool } from './tool.js';

/** A comment and its replies. */
export interface Comment {
  /** Text of the comment. */
  text: string;
  /** Replies, themselves comments. */
  replies: Comment[];
}

export interface ThreadInput {
  /** Title of the thread. */
  title: string;
  /** The first comment. */
  root: Comment;
}

/** Post a thread. */
@tool({ name: 'post_thread', version: '1.0.0' })
export class PostThreadTool {
  async run(args: ThreadInput): Promise<string> {
    return args.title;
  }
}

export const valid: ThreadInput[] = [{ title: 't', root: { text: 'a', replies: [{ text: 'b', replies: [] }] } }];
export const invalid: unknown[] = [{ title: 't', root: { text: 'a', replies: [{ text: 2, replies: [] }] } }];
