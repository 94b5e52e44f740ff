import { Text } from 'ink';
import { theme } from '../theme.js';
import { fit, truncateStart } from '../utils/cells.js';

/** Props of `PromptBar`. */
export interface PromptBarProps {
  /** `/` for the filter, `:` for commands. */
  readonly prefix: string;
  readonly value: string;
  /** True while the operator is typing (shows a cursor block). */
  readonly editing: boolean;
  readonly width: number;
  /** Shown dimmed when `value` is empty and not editing. */
  readonly placeholder?: string;
  /** A problem with the value (bad token), shown after it. */
  readonly error?: string | null;
}

/** The filter / command line. While editing, the end of a long value stays visible. */
export function PromptBar({ prefix, value, editing, width, placeholder, error }: PromptBarProps) {
  const room = Math.max(1, width - 2);
  const shownValue = editing ? truncateStart(value, room - 1) + '█' : value;
  const body = shownValue || (placeholder ?? '');
  const err = error ? `  ${error}` : '';
  const line = fit(body + err, room);
  const valuePart = line.slice(0, body.length);
  return (
    <Text wrap="truncate">
      <Text color={theme.accent} bold>
        {prefix + ' '}
      </Text>
      <Text color={shownValue ? undefined : theme.muted}>{valuePart}</Text>
      <Text color={theme.problem}>{line.slice(body.length)}</Text>
    </Text>
  );
}
