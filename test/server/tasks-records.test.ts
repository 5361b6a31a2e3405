import { describe, expect, it } from 'vitest';
import {
  createTask,
  isTaskId,
  listTaskPage,
  principalTag,
  readTask,
  TaskLimitError,
  type TaskRecord,
  TaskTooLargeError,
  taskLimits,
  updateTask,
} from '../../src/server/tasks/records.ts';
import { storeDrivers } from '../support/drivers.ts';

const drivers = storeDrivers('task-records');

const limits = taskLimits({ maxLivePerPrincipal: 3, maxRecordBytes: 4096 });
const user = () => `user-${Math.random().toString(36).slice(2)}`;
const init = (principal: string) => ({
  principal,
  method: 'tools/call',
  name: 'job',
  args: { n: 1 },
});

describe.each(drivers)('task records: %s', (_name, make) => {
  const open = async () => {
    const s = await make();
    return s;
  };

  it('creates a 128-bit id bound to its principal; another principal sees nothing', async () => {
    const s = await open();
    const alice = user();
    const task = await createTask(s, init(alice), limits);
    expect(isTaskId(task.id)).toBe(true);
    expect(Buffer.from(task.id, 'base64url')).toHaveLength(16);
    expect((await readTask(s, task.id, alice))?.value.status).toBe('working');
    expect(await readTask(s, task.id, user())).toBeUndefined();
    expect(await readTask(s, 'not-an-id', alice)).toBeUndefined();
    expect(await updateTask(s, task.id, user(), (r) => r, limits)).toBeUndefined();
  });

  it('moves status by compare-and-set and never out of a terminal status', async () => {
    const s = await open();
    const alice = user();
    const task = await createTask(s, init(alice), limits);
    const done = await updateTask(
      s,
      task.id,
      alice,
      (r) => ({ ...r, status: 'completed', result: { ok: true } }),
      limits,
    );
    expect(done?.changed).toBe(true);
    const again = await updateTask(s, task.id, alice, (r) => ({ ...r, status: 'working' }), limits);
    expect(again?.changed).toBe(false);
    expect((await readTask(s, task.id, alice))?.value.status).toBe('completed');
  });

  it('applies every one of many concurrent updates', async () => {
    const s = await open();
    const alice = user();
    const task = await createTask(s, { ...init(alice), journal: { n: 0 } }, limits);
    const bump = (r: TaskRecord) => ({
      ...r,
      journal: { n: ((r.journal as { n: number }).n ?? 0) + 1 },
    });
    await Promise.all(
      Array.from({ length: 10 }, () => updateTask(s, task.id, alice, bump, limits)),
    );
    expect((await readTask(s, task.id, alice))?.value.journal).toEqual({ n: 10 });
  });

  it('caps live tasks per principal and bounds the record size', async () => {
    const s = await open();
    const alice = user();
    for (let i = 0; i < 3; i++) await createTask(s, init(alice), limits);
    await expect(createTask(s, init(alice), limits)).rejects.toBeInstanceOf(TaskLimitError);
    // Racing creations never overshoot the cap.
    const carol = user();
    const raced = await Promise.allSettled(
      Array.from({ length: 10 }, () => createTask(s, init(carol), limits)),
    );
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await s.countByTag(principalTag(carol))).toBe(3);
    // Someone else is not affected.
    const bob = user();
    const task = await createTask(s, init(bob), limits);
    expect((await listTaskPage(s, principalTag(alice), alice, undefined, 10)).records).toHaveLength(
      3,
    );
    await expect(
      updateTask(s, task.id, bob, (r) => ({ ...r, result: 'x'.repeat(5000) }), limits),
    ).rejects.toBeInstanceOf(TaskTooLargeError);
    expect((await readTask(s, task.id, bob))?.value.result).toBeUndefined();
  });
});
