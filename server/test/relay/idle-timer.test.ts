import { describe, expect, it } from 'vitest';
import { IdleTimer, idleTimersOf } from '../../src/relay/stream/idle-timer.js';

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

describe('IdleTimer sweep (one interval per timeout length)', () => {
  it('fires each of many timers at its own time, and the ones stopped never', async () => {
    const timeoutMs = 300;
    const firedAt = new Map<number, number>();
    const startedAt = Date.now();
    const timers = Array.from({ length: 50 }, (_, i) => new IdleTimer(timeoutMs, () => firedAt.set(i, Date.now())));
    for (let i = 0; i < 50; i += 2) timers[i]!.stop();
    await sleep(150);
    timers[1]!.touch();
    // The others are due at 300 ms (checked every 37 ms), the touched one at 450.
    await sleep(250);
    expect([...firedAt.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => 2 * i + 3));
    for (const at of firedAt.values()) expect(at - startedAt).toBeGreaterThanOrEqual(timeoutMs);
    expect(firedAt.has(1)).toBe(false);
    const touchedAt = await new Promise<number>((resolve) => {
      const wait = () => (firedAt.has(1) ? resolve(firedAt.get(1)!) : setTimeout(wait, 5));
      wait();
    });
    expect(touchedAt - startedAt).toBeGreaterThanOrEqual(150 + timeoutMs - 2);
  });

  it('keeps no timer once streams end, and its interval stops when none runs', async () => {
    const timeoutMs = 80;
    const timers = Array.from({ length: 1000 }, () => new IdleTimer(timeoutMs, () => undefined));
    expect(idleTimersOf(timeoutMs)).toEqual({ running: 1000, isSweeping: true });
    for (const timer of timers) timer.stop();
    expect(idleTimersOf(timeoutMs).running).toBe(0);
    await sleep(40);
    expect(idleTimersOf(timeoutMs).isSweeping).toBe(false);
    // A timer that fired is gone too.
    let isFired = false;
    new IdleTimer(timeoutMs, () => (isFired = true));
    await sleep(timeoutMs + 60);
    expect(isFired).toBe(true);
    expect(idleTimersOf(timeoutMs)).toEqual({ running: 0, isSweeping: false });
  });

  it('a timer stopped by another one firing in the same check stays quiet', async () => {
    const timeoutMs = 60;
    let isSecondFired = false;
    const second: { timer: IdleTimer | null } = { timer: null };
    new IdleTimer(timeoutMs, () => second.timer!.stop());
    second.timer = new IdleTimer(timeoutMs, () => (isSecondFired = true));
    await sleep(timeoutMs + 60);
    expect(isSecondFired).toBe(false);
  });
});
