import { tool } from './tool.js';

export interface CreateUserInput {
  /**
   * Login name.
   * @minLength 3
   * @maxLength 20
   * @pattern ^[a-z][a-z0-9_]*$
   */
  login: string;
  /**
   * E-mail address.
   * @format email
   */
  email: string;
  /**
   * Age in years.
   * @minimum 13
   * @maximum 130
   * @TJS-type integer
   */
  age?: number;
  /**
   * Quota in MiB.
   * @multipleOf 10
   * @exclusiveMinimum 0
   * @default 100
   */
  quotaMiB?: number;
  /**
   * Roles.
   * @minItems 1
   * @maxItems 3
   * @uniqueItems true
   */
  roles: string[];
}

/** Create a user account. */
@tool({ name: 'create_user', version: '1.0.0' })
export class CreateUserTool {
  async run(args: CreateUserInput): Promise<string> {
    return args.login;
  }
}

export const valid: CreateUserInput[] = [{ login: 'ada', email: 'ada@example.org', roles: ['admin'] }, { login: 'bob_2', email: 'b@example.org', age: 40, quotaMiB: 50, roles: ['a', 'b'] }];
export const invalid: unknown[] = [
  { login: 'A', email: 'x', roles: [] },
  { login: 'ada', email: 'ada@example.org', age: 12.5, roles: ['a'] },
  { login: 'ada', email: 'ada@example.org', quotaMiB: 15, roles: ['a', 'a'] },
];
