import os from 'node:os';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { OptionStore } from '../options/store.js';
import { AppError, type ErrorCode } from './errors.js';

/**
 * The relay's guard against taking load this process cannot carry (new-api's performance monitor):
 * while `performance_setting.monitor_enabled` is on, a timer samples the process every second —
 * event-loop delay (perf_hooks.monitorEventLoopDelay, p99 over the second, and the sampler's own
 * lateness), CPU (process.cpuUsage over the second, in per cent of one core) and memory (the larger
 * of the V8 heap's share of its limit and RSS's share of the memory limit: the cgroup's, else the
 * machine's) — and while one of them is over its threshold (0 turns that one off) the relay answers
 * new calls 503 with Retry-After instead of slowing every call down. The check at the relay's
 * entries reads one field. The management API and the console are not guarded.
 */
export interface LoadSample {
  eventLoopLagMs: number;
  cpuPercent: number;
  memoryPercent: number;
}

export interface OverloadThresholds {
  eventLoopLagMs: number;
  cpuPercent: number;
  memoryPercent: number;
}

type Resource = 'event_loop' | 'cpu' | 'memory';

const sampleMs = 1_000;
/** The histogram's timer period; its samples include it, so it is taken off. */
const resolutionMs = 10;
/** What a refused caller is told to wait (Retry-After). */
export const overloadRetryAfterMs = 5_000;

const refusals: Record<Resource, { code: ErrorCode; message: string }> = {
  event_loop: { code: 'system_event_loop_overloaded', message: '服务器事件循环延迟过高，请稍后再试' },
  cpu: { code: 'system_cpu_overloaded', message: '服务器 CPU 负载过高，请稍后再试' },
  memory: { code: 'system_memory_overloaded', message: '服务器内存使用率过高，请稍后再试' },
};

/** The first resource over its threshold (a threshold of 0 is off), or null. */
export function overloadedResource(sample: LoadSample, limits: OverloadThresholds): Resource | null {
  if (limits.eventLoopLagMs > 0 && sample.eventLoopLagMs > limits.eventLoopLagMs) return 'event_loop';
  if (limits.cpuPercent > 0 && sample.cpuPercent > limits.cpuPercent) return 'cpu';
  if (limits.memoryPercent > 0 && sample.memoryPercent > limits.memoryPercent) return 'memory';
  return null;
}

/** What this process may use: the cgroup's limit when there is one below the machine's memory. */
function memoryLimit(): number {
  const total = os.totalmem();
  const constrained = process.constrainedMemory();
  return constrained > 0 && constrained < total ? constrained : total;
}

function memoryPercent(): number {
  const heap = v8.getHeapStatistics();
  const heapShare = heap.heap_size_limit > 0 ? heap.used_heap_size / heap.heap_size_limit : 0;
  return Math.max(heapShare, process.memoryUsage.rss() / memoryLimit()) * 100;
}

interface GuardLog {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

export class OverloadGuard {
  private overloaded: Resource | null = null;
  private histogram: ELDHistogram | null = null;
  private timer: NodeJS.Timeout | null = null;
  private log: GuardLog | null = null;
  private lastAt = 0;
  private lastCpu: NodeJS.CpuUsage | null = null;
  /** The last sample taken while the guard was on (null while off). */
  lastSample: LoadSample | null = null;

  constructor(private readonly options: OptionStore) {}

  /** The 503 to answer while this process is overloaded, else null. */
  refusal(): AppError | null {
    if (this.overloaded === null) return null;
    const { code, message } = refusals[this.overloaded];
    const error = new AppError(code, message);
    error.retryAfterMs = overloadRetryAfterMs;
    return error;
  }

  start(log: GuardLog): void {
    this.log = log;
    this.timer = setInterval(() => this.sample(), sampleMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.switchOff();
  }

  private thresholds(): OverloadThresholds {
    return {
      eventLoopLagMs: this.options.number('performance_setting.monitor_event_loop_lag_ms'),
      cpuPercent: this.options.number('performance_setting.monitor_cpu_threshold'),
      memoryPercent: this.options.number('performance_setting.monitor_memory_threshold'),
    };
  }

  private switchOff(): void {
    this.histogram?.disable();
    this.histogram = null;
    this.lastCpu = null;
    this.lastSample = null;
    this.setOverloaded(null, null);
  }

  /** One sample (every second): measures, then refuses or takes calls again. */
  private sample(): void {
    if (!this.options.bool('performance_setting.monitor_enabled')) {
      if (this.histogram) this.switchOff();
      return;
    }
    const now = performance.now();
    if (!this.histogram || !this.lastCpu) {
      this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
      this.histogram.enable();
      this.lastCpu = process.cpuUsage();
      this.lastAt = now;
      return;
    }
    const elapsedMs = now - this.lastAt;
    const cpu = process.cpuUsage(this.lastCpu);
    const p99 = this.histogram.count > 0 ? this.histogram.percentile(99) / 1e6 - resolutionMs : 0;
    const sample: LoadSample = {
      // A block just after the reset escapes the histogram; the sampler's own lateness shows it.
      eventLoopLagMs: Math.round(Math.max(0, p99, elapsedMs - sampleMs)),
      cpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / elapsedMs) * 1000) / 10,
      memoryPercent: Math.round(memoryPercent() * 10) / 10,
    };
    this.histogram.reset();
    this.lastCpu = process.cpuUsage();
    this.lastAt = now;
    this.lastSample = sample;
    this.setOverloaded(overloadedResource(sample, this.thresholds()), sample);
  }

  private setOverloaded(resource: Resource | null, sample: LoadSample | null): void {
    if (resource === this.overloaded) return;
    const was = this.overloaded;
    this.overloaded = resource;
    if (resource)
      this.log?.warn(
        { resource, ...sample, thresholds: this.thresholds(), retryAfterSeconds: overloadRetryAfterMs / 1000 },
        'overloaded: the relay refuses new calls (503)',
      );
    else if (was) this.log?.info({ ...sample }, 'no longer overloaded: the relay takes calls again');
  }
}
