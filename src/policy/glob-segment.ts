/**
 * One path component's glob (`*`, `?`, bracket classes with `!` negation; every other character
 * literal) as an anchored regular expression, as bash matches a word's component against the
 * names of a folder. A class the engine cannot read matches every name (fail closed).
 * `caseless`: match names whatever their case (a withheld glob judged against names an
 * older commit may have spelled otherwise).
 */
export function globSegmentPattern(part: string, caseless = false): RegExp {
  let source = '';
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const end = part.indexOf(']', i + 2);
      if (end < 0) source += '\\[';
      else {
        source += `[${part.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, caseless ? 'is' : 's');
  } catch {
    return /^/;
  }
}
