import { describe, expect, it } from 'vitest';
import { IdleTimer } from '../../src/relay/stream/idle-timer.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the timer to fire and tells how long after `from` it did. */
function firing(): { fired: Promise<number>; onIdle: () => void } {
  let resolve!: (at: number) => void;
  const fired = new Promise<number>((done) => (resolve = done));
  return { fired, onIdle: () => resolve(Date.now()) };
}

describe('IdleTimer', () => {
  it('fires after the timeout without arrivals, later when pieces keep arriving', async () => {
    const { fired, onIdle } = firing();
    const startedAt = Date.now();
    const timer = new IdleTimer(100, onIdle);
    await sleep(60);
    timer.touch();
    const at = await fired;
    expect(at - startedAt).toBeGreaterThanOrEqual(155);
  });

  it('does not run while paused on a slow client, and counts from zero after the drain', async () => {
    const { fired, onIdle } = firing();
    const timer = new IdleTimer(100, onIdle);
    timer.pause();
    await sleep(300);
    const resumedAt = Date.now();
    timer.resume();
    const at = await fired;
    expect(at - resumedAt).toBeGreaterThanOrEqual(95);
  });

  it('ends a client that drains nothing for five timeouts', async () => {
    const { fired, onIdle } = firing();
    const timer = new IdleTimer(50, onIdle);
    const pausedAt = Date.now();
    timer.pause();
    const at = await fired;
    expect(at - pausedAt).toBeGreaterThanOrEqual(245);
  });

  it('never fires once stopped', async () => {
    let isFired = false;
    const timer = new IdleTimer(30, () => {
      isFired = true;
    });
    timer.stop();
    await sleep(80);
    expect(isFired).toBe(false);
  });
});
