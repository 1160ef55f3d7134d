// Worker process: `npm run start:worker` (any number of them on one database).
import { runWorkerProcess } from './process.ts';

await runWorkerProcess();
