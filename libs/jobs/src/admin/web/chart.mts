import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';
import { html } from 'htm/preact';

/** One line of a chart. */
export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];

/** A uPlot line chart over `xs` (epoch seconds), redrawn when its data changes. */
export function Chart(props: {
  readonly title: string;
  readonly xs: readonly number[];
  readonly series: readonly Series[];
  readonly testid: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = props.series.map((s) => s.label).join('|');
  useEffect(() => {
    if (box.current === null) return undefined;
    plot.current = new uPlot(
      {
        title: props.title,
        width: Math.max(320, box.current.clientWidth || 480),
        height: 180,
        series: [
          {},
          ...props.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length] })),
        ],
      },
      [[], ...props.series.map(() => [])] as uPlot.AlignedData,
      box.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, props.title]);
  useEffect(() => {
    plot.current?.setData([
      props.xs as number[],
      ...props.series.map((s) => s.values as (number | null)[]),
    ]);
  });
  return html`<div class="chart" data-testid=${props.testid} ref=${box}></div>`;
}
