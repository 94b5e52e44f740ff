import { Text } from 'ink';
import { theme } from '../theme.js';
import { fit } from '../utils/cells.js';

/** The views reachable with Tab, in Tab order. */
export const TABS = ['issues', 'errors', 'storms', 'draft'] as const;

/** Props of `TitleBar`. */
export interface TitleBarProps {
  /** Current view name (`errors`, `detail`, `storms`, `draft`, `help`). */
  readonly view: string;
  readonly width: number;
}

/** First line: the tool name and the tabs, the current one highlighted and bracketed. */
export function TitleBar({ view, width }: TitleBarProps) {
  const current = view === 'detail' ? 'errors' : view;
  const tabs = TABS.map((t) => (t === current ? `[${t}]` : ` ${t} `));
  const right = view === 'detail' ? 'detail' : view === 'help' ? 'help' : '';
  const text = `aap-triage  ${tabs.join(' ')}${right ? `  › ${right}` : ''}`;
  return (
    <Text wrap="truncate" bold>
      <Text color={theme.accent}>{fit(text, width)}</Text>
    </Text>
  );
}
