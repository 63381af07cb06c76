import v8 from 'node:v8';

/**
 * V8's allocation-site pretenuring is turned off for the server process (docs/performance.md, "GC").
 * Under relay load V8 sometimes decides, from a few scavenges' feedback, to allocate a request-path
 * site straight into the old generation. Those objects then die there, but until the next full GC
 * they keep every young object they point to alive: each scavenge copies about 7 MB instead of 1 MB
 * (14 ms instead of 3 ms), and a run costs 5–10 µs more CPU per request. Which way a run goes was a
 * matter of chance; without pretenuring every run measured took the fast way. Imported first by main.ts, before the
 * server allocates anything.
 */
v8.setFlagsFromString('--no-allocation-site-pretenuring');
