import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A uPlot chart sized to its container. The canvas is an image to assistive tech, named by
 * `label`; every chart on a page is followed by a table of the same numbers.
 */
export function Chart({ label, options, data, height = 220 }: { label: string; options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const plot = new uPlot({ ...options, width: Math.max(el.clientWidth, 280), height }, data, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [options, data, height]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}

export const COLORS = { primary: '#1d4ed8', secondary: '#b45309', muted: '#6b7280', bad: '#b91c1c' };

/**
 * Bars for a few named groups, two series side by side in each (one per y-axis): uPlot draws
 * bars along a numeric x, so each group sits at an integer and its two bars just either side.
 */
export function groupedBars(groups: string[], series: Array<{ label: string; values: number[]; color: string; scale: string }>): { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData } {
  const offset = 0.18;
  const xs: number[] = [];
  groups.forEach((_, i) => series.forEach((__, s) => xs.push(i + (s === 0 ? -offset : offset))));
  const columns = series.map((s, si) => xs.map((_, k) => (k % series.length === si ? s.values[Math.floor(k / series.length)] : null)));
  const bars = uPlot.paths.bars!({ size: [0.3, 48], align: 0 });
  return {
    data: [xs, ...columns],
    options: {
      scales: { x: { time: false, range: [-0.6, groups.length - 0.4] }, ...Object.fromEntries(series.map((s) => [s.scale, { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(1, max * 1.1)] as uPlot.Range.MinMax }])) },
      axes: [
        { splits: () => groups.map((_, i) => i), values: (_u, splits) => splits.map((v) => groups[Math.round(v)] ?? '') },
        ...series.map((s, i) => ({ scale: s.scale, side: i === 0 ? 3 : 1, label: s.label, stroke: s.color, grid: { show: i === 0 } })),
      ],
      series: [{}, ...series.map((s) => ({ label: s.label, scale: s.scale, stroke: s.color, fill: s.color, paths: bars, points: { show: false } }))],
      legend: { show: true, live: false },
      cursor: { show: false },
    },
  };
}
