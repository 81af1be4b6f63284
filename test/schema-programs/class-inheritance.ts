import { tool } from './tool.js';

/** What every request carries. */
export class BaseRequest {
  /** Who asks. */
  requester!: string;
}

/** A request for leave: inherits the requester. */
export class LeaveRequest extends BaseRequest {
  /** First day, YYYY-MM-DD. */
  from!: string;
  /** Number of days. */
  days!: number;
}

export interface Reviewed extends LeaveRequest {
  /** The reviewer. */
  reviewer: string;
}

/** Request leave. */
@tool({ name: 'request_leave', version: '1.0.0' })
export class RequestLeaveTool {
  async run(args: Reviewed): Promise<string> {
    return args.requester;
  }
}

export const valid: Reviewed[] = [{ requester: 'a', from: '2026-01-01', days: 2, reviewer: 'b' }];
export const invalid: unknown[] = [{ from: '2026-01-01', days: 2, reviewer: 'b' }];
