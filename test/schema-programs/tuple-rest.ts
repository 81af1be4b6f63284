import { tool } from './tool.js';

export interface RecordSeriesInput {
  /** A label followed by any number of readings. */
  series: [string, ...number[]];
}

/** Record a series of readings. */
@tool({ name: 'record_series', version: '1.0.0' })
export class RecordSeriesTool {
  async run(args: RecordSeriesInput): Promise<number> {
    return args.series.length - 1;
  }
}

export const valid: RecordSeriesInput[] = [{ series: ['temp'] }, { series: ['temp', 1, 2.5, 3] }];
export const invalid: unknown[] = [{ series: [] }, { series: ['temp', 'warm'] }, { series: [1, 2] }];
