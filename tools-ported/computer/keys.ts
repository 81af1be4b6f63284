/**
 * Key names of computer_use's `key` action, checked before anything is sent: xdotool itself
 * ignores a name it does not know (it prints a warning and exits 0), so an unknown key would
 * silently change nothing while the model believes it was pressed. A press is one combination
 * (`ctrl+s`, `Return`, `shift+Tab`) or a few separated by spaces (`ctrl+a Delete`); names are
 * X keysym names as xdotool takes them, with the common spellings models use mapped onto
 * them (`Enter` is `Return`, `Esc` is `Escape`, `PageDown` is `Page_Down`, `cmd` is `super`).
 *
 * @module
 */
import { ToolExecutionError } from '../../src/tool.js';

/** Combinations in one `key` action at most. */
const MAX_KEY_COMBOS = 16;
/** Keys in one combination at most (modifiers included). */
const MAX_KEYS_PER_COMBO = 5;

/** Modifiers, by the names models use, as xdotool takes them. */
const MODIFIERS: Readonly<Record<string, string>> = Object.freeze({
  ctrl: 'ctrl', control: 'ctrl', alt: 'alt', shift: 'shift', super: 'super', meta: 'meta', cmd: 'super', win: 'super',
});

/** Named keys (lowercase spelling -> keysym name). */
const NAMED: Readonly<Record<string, string>> = Object.freeze({
  return: 'Return', enter: 'Return', tab: 'Tab', escape: 'Escape', esc: 'Escape', backspace: 'BackSpace',
  delete: 'Delete', del: 'Delete', insert: 'Insert', home: 'Home', end: 'End', page_up: 'Page_Up', pageup: 'Page_Up',
  page_down: 'Page_Down', pagedown: 'Page_Down', up: 'Up', down: 'Down', left: 'Left', right: 'Right', space: 'space',
  menu: 'Menu', print: 'Print', pause: 'Pause', caps_lock: 'Caps_Lock', num_lock: 'Num_Lock', scroll_lock: 'Scroll_Lock',
  minus: 'minus', equal: 'equal', plus: 'plus', comma: 'comma', period: 'period', slash: 'slash', backslash: 'backslash',
  semicolon: 'semicolon', apostrophe: 'apostrophe', grave: 'grave', bracketleft: 'bracketleft', bracketright: 'bracketright',
  ctrl_l: 'Control_L', control_l: 'Control_L', ctrl_r: 'Control_R', control_r: 'Control_R', shift_l: 'Shift_L', shift_r: 'Shift_R',
  alt_l: 'Alt_L', alt_r: 'Alt_R', super_l: 'Super_L', super_r: 'Super_R',
  kp_enter: 'KP_Enter', kp_add: 'KP_Add', kp_subtract: 'KP_Subtract', kp_multiply: 'KP_Multiply', kp_divide: 'KP_Divide',
});

/** Single characters that are keys of their own, by their keysym name. */
const PUNCTUATION: Readonly<Record<string, string>> = Object.freeze({
  '-': 'minus', '=': 'equal', ',': 'comma', '.': 'period', '/': 'slash', '\\': 'backslash', ';': 'semicolon',
  "'": 'apostrophe', '`': 'grave', '[': 'bracketleft', ']': 'bracketright',
});

/** The keysym name of one key, or `undefined` when it is not one. */
function keysym(name: string): string | undefined {
  if (/^[a-zA-Z0-9]$/.test(name)) return name;
  if (PUNCTUATION[name] !== undefined) return PUNCTUATION[name];
  const lower = name.toLowerCase();
  if (/^f([1-9]|1[0-9]|2[0-4])$/.test(lower)) return lower.toUpperCase();
  if (/^kp_[0-9]$/.test(lower)) return `KP_${lower.slice(3)}`;
  return NAMED[lower];
}

/**
 * The xdotool key arguments of `keys` (`"ctrl+s"`, `"Return"`, `"ctrl+a Delete"`).
 * @throws ToolExecutionError (`INVALID_ARGUMENTS`) naming the first unknown key, an empty
 *   press, or too many; nothing is sent then.
 */
export function parseKeys(keys: unknown): string[] {
  if (typeof keys !== 'string' || keys.trim() === '') throw new ToolExecutionError('computer_use: the key action needs keys, such as "Return", "ctrl+s" or "ctrl+a Delete". Nothing was sent.', 'INVALID_ARGUMENTS');
  const combos = keys.trim().split(/\s+/);
  if (combos.length > MAX_KEY_COMBOS) throw new ToolExecutionError(`computer_use: at most ${MAX_KEY_COMBOS} key presses in one action; got ${combos.length}. Nothing was sent.`, 'INVALID_ARGUMENTS');
  return combos.map((combo) => {
    const parts = combo === '+' ? ['plus'] : combo.split('+');
    if (parts.length > MAX_KEYS_PER_COMBO || parts.some((p) => p === '')) {
      throw new ToolExecutionError(`computer_use: ${JSON.stringify(combo.slice(0, 60))} is not a key combination (write modifiers and one key joined by "+", such as "ctrl+shift+t"). Nothing was sent.`, 'INVALID_ARGUMENTS');
    }
    const names = parts.map((part, i) => {
      const modifier = i < parts.length - 1 || parts.length > 1 ? MODIFIERS[part.toLowerCase()] : undefined;
      const name = modifier ?? keysym(part);
      if (name === undefined) {
        throw new ToolExecutionError(
          `computer_use: unknown key name ${JSON.stringify(part.slice(0, 40))}. Use a letter or digit, F1 to F24, Return, Tab, Escape, BackSpace, Delete, Home, End, Page_Up, Page_Down, Up, Down, Left, Right, space, ` +
            'punctuation (minus, comma, period, slash...), and modifiers ctrl, alt, shift, super joined with "+". Nothing was sent.',
          'INVALID_ARGUMENTS',
        );
      }
      return name;
    });
    return names.join('+');
  });
}
