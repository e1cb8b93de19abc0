import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartData } from './stats';

/**
 * One time series chart, drawn by uPlot on a canvas (loaded with the overview screen only, via React.lazy). The chart
 * is made once and fed new data on every refresh, so a hover or the legend does not reset every 10 seconds. uPlot
 * sets its sizes through the DOM, not inline style attributes, so the console's Content-Security-Policy holds.
 */
const HEIGHT = 170;

export interface TimeChartProps {
  data: ChartData;
  /** One stroke colour per series. */
  colors: string[];
  /** Formats a value on the y axis and in the legend. */
  format: (value: number) => string;
  /** The y axis never ends below this (a quiet hour still shows a baseline and a scale). */
  minMax?: number;
}

function toAligned(data: ChartData): uPlot.AlignedData {
  return [data.times, ...data.series.map((series) => series.values)];
}

export default function TimeChart({ data, colors, format, minMax = 1 }: TimeChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  // The options are fixed when the chart is made; new data reaches it through setData below.
  const latest = useRef(data);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height: HEIGHT,
      scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, Math.max(max ?? 0, minMax)] } },
      series: [
        {},
        ...latest.current.series.map((series, index) => ({
          label: series.label,
          stroke: colors[index % colors.length],
          width: 1.5,
          points: { show: false },
          value: (_self: uPlot, value: number | null) => (value === null || value === undefined ? '–' : format(value)),
        })),
      ],
      axes: [{}, { size: 64, values: (_self, splits) => splits.map((value) => format(value)) }],
      legend: { show: true, live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const plot = new uPlot(options, toAligned(latest.current), element);
    chart.current = plot;
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 200), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
      chart.current = null;
    };
  }, [colors, format, minMax]);

  useEffect(() => {
    latest.current = data;
    chart.current?.setData(toAligned(data));
  }, [data]);

  // The summary beside the chart says its numbers in words; the canvas and its legend's hover values are for the eye.
  return <div ref={container} className="time-chart" aria-hidden="true" />;
}
