import { Text } from 'ink';
import { sparkline } from '../utils/charts.js';
import { fit } from '../utils/cells.js';

/** Props of `Sparkline`. */
export interface SparklineProps {
  readonly values: readonly number[];
  /** Display cells; the line is padded to exactly this width. */
  readonly width: number;
  readonly color?: string;
}

/** A one-line chart of `values` (peaks kept when squeezed), padded to `width` cells. */
export function Sparkline({ values, width, color }: SparklineProps) {
  return <Text color={color}>{fit(sparkline(values, width), width)}</Text>;
}
