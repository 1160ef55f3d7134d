import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { handlers } from '../server/handlers/index.ts';
import { document } from './support/contract.ts';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

describe('handler map', () => {
  it('has exactly one handler per operationId of the document', () => {
    const operationIds: string[] = [];
    for (const item of Object.values(document.paths)) {
      for (const [method, op] of Object.entries(item)) if (HTTP_METHODS.has(method)) operationIds.push(op.operationId);
    }
    assert.equal(new Set(operationIds).size, operationIds.length, 'operationIds are unique in the document');
    const docIds = new Set(operationIds);
    const handlerIds = new Set(Object.keys(handlers));
    const missing = [...docIds].filter((id) => !handlerIds.has(id)).sort();
    const extra = [...handlerIds].filter((id) => !docIds.has(id)).sort();
    assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, 'handlers and operationIds differ');
    for (const id of handlerIds) assert.equal(typeof (handlers as Record<string, unknown>)[id], 'function', `${id} is a function`);
  });
});
