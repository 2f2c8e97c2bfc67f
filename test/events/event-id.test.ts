import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newEventId } from '../../src/events/event-id.js';

describe('Event ids', () => {
  it('are evt_ and 32 hex digits, time first, so later events sort after earlier ones', () => {
    const times = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 2 ** 45];
    const ids = times.map((t) => newEventId(t));
    for (const id of ids) assert.match(id, /^evt_[0-9a-f]{32}$/);
    assert.deepEqual([...ids].sort(), ids);
    assert.ok(ids[0]!.startsWith(`evt_${(1_700_000_000_000).toString(16).padStart(12, '0')}`));
  });

  it('differ within one millisecond (80 random bits)', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newEventId(1_700_000_000_000)));
    assert.equal(ids.size, 10_000);
  });
});
