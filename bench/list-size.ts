// npm run bench:list-size
//
// How many bytes a page of 100 maximal deploys puts on the wire, uncompressed and compressed,
// and how long the server takes to send it. A maximal deploy is as large as a request can make
// it: 500 changes with signals up to the 1 MiB body limit, its paths varied the way a real
// repository's are (random section, component and file names, so the compressor cannot simply
// repeat one deploy). Each deploy is recorded through POST /v1/deploys on the real server
// (startServer, as server/main.ts runs it); the page is then read with GET /v1/deploys?limit=100
// by node:http (fetch would decode the body and hide the wire size), once per encoding.
// Writes bench/results/list-size.md. BENCH_ENGINES picks the engines (default both).

import crypto from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { BODY_LIMIT_BYTES } from '../server/body.ts';
import { Scratch, createOwner, enginesToRun, fmt, machineLines, runBenchmark, startServerChild, writeReport, type Engine } from './lib/harness.ts';

const DEPLOYS = 100;
const KINDS = ['title', 'meta_description', 'canonical', 'hreflang', 'structured_data', 'heading', 'link', 'redirect', 'script', 'stylesheet', 'image', 'route'] as const;
const CATEGORIES = ['page', 'component', 'template', 'style', 'config', 'content'] as const;

function word(): string {
  return crypto.randomBytes(6).toString('base64url').replace(/[^a-z]/gi, '').toLowerCase() || 'x';
}

/** One deploy body as close to the 1 MiB body limit as 500 changes of up to 50 signals get. */
function maximalDeploy(): Record<string, unknown> {
  const changes: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 500; i++) {
    const signals = Array.from({ length: 50 }, () => ({
      kind: KINDS[crypto.randomInt(KINDS.length)],
      change: crypto.randomInt(2) ? 'added' : 'removed',
      line: 1 + crypto.randomInt(2000),
    }));
    changes.push({ path: `src/${word()}/${word()}/${word()}-${word()}/${word()}.tsx`, category: CATEGORIES[crypto.randomInt(CATEGORIES.length)], signals });
  }
  const body = { commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging', ref: `release/${word()}`, message: 'm'.repeat(2000), changes };
  // Drop signals (round-robin from the last change back) until the body fits; sizes are counted, not re-serialized.
  let size = Buffer.byteLength(JSON.stringify(body));
  const budget = BODY_LIMIT_BYTES - 256;
  for (let i = changes.length - 1; size > budget; i = i === 0 ? changes.length - 1 : i - 1) {
    const signals = (changes[i] as { signals: unknown[] }).signals;
    if (signals.length > 1) size -= Buffer.byteLength(JSON.stringify(signals.pop())) + 1;
  }
  return body;
}

function request(url: string, opts: { method: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; bytes: number; encoding: string | null; ms: number; firstByteMs: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: opts.headers, agent: false }, (res) => {
      const firstByteMs = performance.now() - started;
      let bytes = 0;
      let head = '';
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (head.length < 500) head += c.toString('latin1', 0, 500);
      });
      res.on('end', () => resolve({ status: res.statusCode!, bytes, encoding: (res.headers['content-encoding'] as string | undefined) ?? null, ms: performance.now() - started, firstByteMs, text: head }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

interface Row {
  engine: Engine;
  encoding: string;
  bytes: number;
  ms: number;
  firstByteMs: number;
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const rows: Row[] = [];
  let requestBytes = 0;
  for (const engine of enginesToRun()) {
    const s = await scratch.create(engine);
    const owner = await createOwner(s.db, 'list-size');
    const server = await startServerChild('app', s.url);
    try {
      for (let i = 0; i < DEPLOYS; i++) {
        const body = JSON.stringify({ workspaceId: owner.workspaceId, ...maximalDeploy() });
        requestBytes = Math.max(requestBytes, Buffer.byteLength(body));
        const res = await request(`${server.url}/v1/deploys`, { method: 'POST', headers: { 'x-api-key': owner.apiKey, 'content-type': 'application/json' }, body });
        if (i % 20 === 0) console.log(`${engine}: deploy ${i}`);
        if (res.status !== 201) throw new Error(`POST /v1/deploys answered ${res.status}: ${res.text}`);
      }
      const url = `${server.url}/v1/deploys?workspace_id=${owner.workspaceId}&limit=100`;
      for (const encoding of ['identity', 'gzip', 'br']) {
        const runs: Array<Awaited<ReturnType<typeof request>>> = [];
        for (let r = 0; r < 3; r++) runs.push(await request(url, { method: 'GET', headers: { 'x-api-key': owner.apiKey, 'accept-encoding': encoding } }));
        const last = runs[runs.length - 1];
        if (last.status !== 200) throw new Error(`GET /v1/deploys answered ${last.status}`);
        if ((last.encoding ?? 'identity') !== encoding) throw new Error(`asked for ${encoding}, got ${last.encoding}`);
        const median = (f: (x: (typeof runs)[number]) => number) => runs.map(f).sort((a, b) => a - b)[1];
        rows.push({ engine, encoding, bytes: last.bytes, ms: median((x) => x.ms), firstByteMs: median((x) => x.firstByteMs) });
        console.log(`${engine} ${encoding}: ${(last.bytes / 1e6).toFixed(2)} MB in ${median((x) => x.ms).toFixed(0)} ms`);
      }
    } finally {
      await server.stop();
    }
  }
  const lines = [
    '# bench:list-size: a page of 100 maximal deploys on the wire',
    '',
    ...machineLines('npm run bench:list-size').filter((l) => !l.startsWith('- Columns') && !l.startsWith('- Shared') && !l.startsWith('- Load')),
    '',
    `Each deploy is recorded through \`POST /v1/deploys\` with a body of up to ${fmt(requestBytes)} bytes (the limit is ${fmt(BODY_LIMIT_BYTES)}): 500 changes under random paths, up to 50 signals each, a 2,000-character message. \`GET /v1/deploys?limit=100\` is read three times per encoding with node:http; bytes are those on the wire, times are the median of the three (from the request to the first byte, and to the last).`,
    '',
    '| engine | Accept-Encoding | bytes on the wire | MB | vs identity | first byte (ms) | whole response (ms) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const identity = rows.find((x) => x.engine === r.engine && x.encoding === 'identity')!;
      return `| ${r.engine} | ${r.encoding} | ${fmt(r.bytes)} | ${(r.bytes / 1e6).toFixed(2)} | ${((r.bytes / identity.bytes) * 100).toFixed(1)}% | ${fmt(r.firstByteMs)} | ${fmt(r.ms)} |`;
    }),
  ];
  writeReport('list-size.md', lines);
});
