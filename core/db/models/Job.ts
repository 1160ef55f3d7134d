import { Model } from 'objection';

export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

// The queue's own statements (claim, complete, fail, heartbeat, recovery) are single SQL
// statements in core/jobs/, measured by bench:queue; the model serves the operator views.
export class Job extends Model {
  static tableName = 'jobs';
  static jsonAttributes = ['payload'];

  declare id: string;
  declare kind: string;
  declare payload: unknown;
  declare state: JobState;
  declare run_at: number;
  declare attempts: number;
  declare max_attempts: number;
  declare lease_expires_at: number | null;
  declare locked_by: string | null;
  declare last_error: string | null;
  declare dedupe_key: string | null;
  declare created_at: number;
  declare updated_at: number;
  declare started_at: number | null;
  declare finished_at: number | null;
}
