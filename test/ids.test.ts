import assert from 'node:assert/strict';
import { it } from 'node:test';
import { validate, version } from 'uuid';
import { newId } from '../core/platform/index.ts';

it('ids are valid UUID v7, unique and strictly increasing, also many within one millisecond', () => {
  const ids = Array.from({ length: 20_000 }, () => newId());
  assert.ok(ids.every((id) => validate(id) && version(id) === 7));
  assert.equal(new Set(ids).size, ids.length);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i - 1]} then ${ids[i]}`);
  // The time prefix is the clock's (never more than the few ms a burst can borrow ahead).
  const ms = parseInt(newId().replace(/-/g, '').slice(0, 12), 16);
  assert.ok(Math.abs(ms - Date.now()) < 1000);
});
