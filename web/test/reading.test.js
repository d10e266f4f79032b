import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atBottom, isTall, landing, seenRows, scrollFor } from '../src/reading.js';

test('a message half in view is seen; one barely in view is not yet', () => {
  const looked = new Map();
  const rows = [{ id: 1, top: -40, bottom: 20 }, { id: 2, top: 20, bottom: 80 }, { id: 3, top: 480, bottom: 560 }];
  assert.deepEqual(seenRows(rows, 500, looked), [2]);
  assert.ok(looked.has(1) && looked.has(3) && !looked.has(2));
});

test('a message taller than the view is seen once half the view shows it', () => {
  const looked = new Map();
  // an 80-line block, 1,300 px, in a 506 px list
  assert.deepEqual(seenRows([{ id: 7, top: 400, bottom: 1700 }], 506, looked), []);
  assert.deepEqual(seenRows([{ id: 7, top: 200, bottom: 1500 }], 506, looked), [7]);
  assert.deepEqual(seenRows([{ id: 8, top: -900, bottom: 400 }], 506, new Map()), [8]);
});

test('a message scrolled past is seen, even in one jump; one that came in above is not', () => {
  const looked = new Map();
  seenRows([{ id: 5, top: 490, bottom: 600 }, { id: 6, top: 2000, bottom: 2100 }], 500, looked);
  // the person drags the scroll bar: both go from below the view to above it at once
  assert.deepEqual(seenRows([{ id: 5, top: -3000, bottom: -2890 }, { id: 6, top: -900, bottom: -800 }], 500, looked), [5, 6]);
  // an older page comes in above the view: never scrolled past, not seen
  const older = new Map();
  assert.deepEqual(seenRows([{ id: 1, top: -300, bottom: -190 }], 500, older), []);
  assert.deepEqual(seenRows([{ id: 1, top: -200, bottom: -90 }], 500, older), []);
});

test('a narrow lands at its first unread message with context above, else at the bottom', () => {
  assert.deepEqual(landing(null, 600), { stick: true });
  assert.deepEqual(landing(42, 600), { anchorId: 42, offset: 80 });
  assert.deepEqual(landing(42, 200), { anchorId: 42, offset: 50 });
  assert.equal(scrollFor(1000, 80), 920);
  assert.equal(scrollFor(30, 80), 0);
});

test('the bottom follows new messages; tall messages are condensed', () => {
  assert.ok(atBottom(1500, 2000, 500));
  assert.ok(!atBottom(1400, 2000, 500));
  assert.ok(isTall(600, 844));
  assert.ok(!isTall(500, 844));
});
