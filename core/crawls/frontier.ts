import { normalizeUrl } from '../pages/index.ts';

// The crawl frontier: URLs to visit breadth first, each once (by normalized URL), with the depth
// it was found at (clicks from the home page) and what links to it.

export interface FrontierEntry {
  url: string;
  depth: number;
}

export class Frontier {
  private readonly queue: FrontierEntry[] = [];
  private head = 0;
  private readonly known = new Set<string>();
  /** Inbound links per URL: how many crawled pages link to it, and the first of them. */
  readonly inlinks = new Map<string, { count: number; from: string }>();

  /** Adds a URL unless it was seen before; returns the normalized URL, or null when not added. */
  add(raw: string, depth: number): string | null {
    const url = normalizeUrl(raw);
    if (!url || this.known.has(url)) return null;
    this.known.add(url);
    this.queue.push({ url, depth });
    return url;
  }

  /** Records that `from` links to `to` (any origin; only crawled targets are judged later). */
  link(from: string, to: string): void {
    const url = normalizeUrl(to);
    if (!url || url === from) return;
    const hit = this.inlinks.get(url);
    if (hit) hit.count += 1;
    else this.inlinks.set(url, { count: 1, from });
  }

  next(): FrontierEntry | undefined {
    return this.head < this.queue.length ? this.queue[this.head++] : undefined;
  }

  get pending(): number {
    return this.queue.length - this.head;
  }
}
