import { tool } from './tool.js';

export interface TagInput {
  /** Always "v1": a single string literal. */
  apiVersion: 'v1';
  /** A user id such as user_42: a template literal type. */
  userId: `user_${string}`;
}

/** Tag a user. */
@tool({ name: 'tag_user', version: '1.0.0' })
export class TagUserTool {
  async run(args: TagInput): Promise<string> {
    return args.userId;
  }
}

export const valid: TagInput[] = [{ apiVersion: 'v1', userId: 'user_42' }];
export const invalid: unknown[] = [{ apiVersion: 'v2', userId: 'user_42' }];
