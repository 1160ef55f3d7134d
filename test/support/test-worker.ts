// A worker process whose registry also runs the test kinds (test_record, noop): what
// `npm run start:worker` runs, plus the tasks of test/support/test-tasks.ts.
import { runWorkerProcess } from '../../worker/process.ts';
import { testTasks } from './test-tasks.ts';

await runWorkerProcess(testTasks);
