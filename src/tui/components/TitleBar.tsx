import { Text } from 'ink';
import { theme } from '../theme.js';
import { TAB_VIEWS, tabOf, type ViewName } from '../registry.js';
import { fit } from '../utils/cells.js';

/** Props of `TitleBar`. */
export interface TitleBarProps {
  readonly view: ViewName;
  readonly width: number;
}

/** First line: the tool name and the tabs (the registry's), the current one highlighted and bracketed. */
export function TitleBar({ view, width }: TitleBarProps) {
  const current = tabOf(view);
  const tabs = TAB_VIEWS.map((t) => (t === current ? `[${t}]` : ` ${t} `));
  // A view that is no tab is named after the tabs.
  const right = TAB_VIEWS.includes(view) ? '' : view;
  const text = `aap-triage  ${tabs.join(' ')}${right ? `  › ${right}` : ''}`;
  return (
    <Text wrap="truncate" bold>
      <Text color={theme.accent}>{fit(text, width)}</Text>
    </Text>
  );
}
