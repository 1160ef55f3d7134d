// Parse throughput of the page analyzer next to the raw htmlparser2 Parser over the same pages,
// in the same process, measured alternately (round by round, order swapped every round) so
// that CPU frequency, GC and neighbours on a shared machine weigh on both sides alike.
//
// Both sides start from the page bytes, so both include decoding them to a string. The raw
// side is the Parser with no-op callbacks for the events a consumer would listen to (open tag
// with attributes, text, close tag): the cheapest useful parse. For reference, `bareParserMBps`
// is the Parser with no handler at all (it then skips building attribute objects), a stricter
// bound no real consumer reaches.

import { Parser } from 'htmlparser2';
import { analyzeHtml } from '../../core/pages/index.ts';

export interface ParseThroughput {
  analyzerMBps: number;
  rawParserMBps: number;
  /** analyzerMBps / rawParserMBps. */
  ratio: number;
  bareParserMBps: number;
  /** Per measured round, analyzer / raw. */
  roundRatios: number[];
  megabytes: number;
}

const noop = () => {};
const EMPTY_CALLBACKS = { onopentagname: noop, onattribute: noop, onopentag: noop, ontext: noop, onclosetag: noop };

// A sink the optimiser cannot prove unused.
let sink = 0;

function runRaw(pages: Buffer[], callbacks: object): number {
  const t0 = performance.now();
  for (const page of pages) {
    const parser = new Parser(callbacks);
    parser.end(page.toString('utf8'));
    sink += parser.endIndex;
  }
  return performance.now() - t0;
}

function runAnalyzer(pages: Buffer[]): number {
  const t0 = performance.now();
  for (const page of pages) {
    const a = analyzeHtml(page, { url: 'https://www.example.com/catalog/item', headers: { 'content-type': 'text/html; charset=utf-8' } });
    sink += a.wordCount;
  }
  return performance.now() - t0;
}

export function measureParseThroughput(pages: Buffer[], opts: { rounds: number }): ParseThroughput {
  const bytes = pages.reduce((n, p) => n + p.length, 0);
  // Warm-up: let the JIT settle on both code paths before anything is timed.
  runRaw(pages, EMPTY_CALLBACKS);
  runAnalyzer(pages);
  runRaw(pages, {});

  let rawMs = 0;
  let analyzerMs = 0;
  let bareMs = 0;
  const roundRatios: number[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    let r: number;
    let a: number;
    if (round % 2 === 0) {
      r = runRaw(pages, EMPTY_CALLBACKS);
      a = runAnalyzer(pages);
    } else {
      a = runAnalyzer(pages);
      r = runRaw(pages, EMPTY_CALLBACKS);
    }
    bareMs += runRaw(pages, {});
    rawMs += r;
    analyzerMs += a;
    roundRatios.push(r / a);
  }
  if (sink === -1) console.log(sink);
  const mbps = (ms: number) => (bytes * opts.rounds) / 1e6 / (ms / 1000);
  return {
    analyzerMBps: mbps(analyzerMs),
    rawParserMBps: mbps(rawMs),
    ratio: rawMs / analyzerMs,
    bareParserMBps: mbps(bareMs),
    roundRatios,
    megabytes: bytes / 1e6,
  };
}
