import type { TaskHandler } from '../task.ts';

/** Does nothing: tests and benchmarks of the queue itself. */
export const noop: TaskHandler<'noop'> = async () => {};
