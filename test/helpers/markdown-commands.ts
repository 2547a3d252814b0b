// The shell commands of a Markdown page, as a reader sees them: the ```sh blocks in order, grouped by the `##` section
// they stand in, each command with the page line it starts on and the output the page shows for it (a `# {…}` line
// right after it). A command runs on across lines that end with a backslash; other `#` lines are comments.

export interface ShownCommand {
  /** The command as written, continuation lines included. */
  text: string;
  /** The page's line number where it starts (1-based). */
  line: number;
  /** The output the page shows after it (`# {…}` without the `# `), if any. */
  shownOutput?: string;
}

export interface Section {
  title: string;
  commands: ShownCommand[];
}

/** The sections that hold ```sh blocks, in page order, with their commands. */
export function shellSections(markdown: string): Section[] {
  const sections: Section[] = [];
  let section: Section = { title: '(before the first section)', commands: [] };
  let inShell = false;
  let inOtherFence = false;
  let pending: ShownCommand | undefined;
  markdown.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (inShell || inOtherFence) {
      if (raw.startsWith('```')) {
        inShell = inOtherFence = false;
        pending = undefined;
      } else if (inShell) pending = addLine(section, pending, raw, line);
      return;
    }
    if (raw.startsWith('```')) {
      inShell = raw.trim() === '```sh';
      inOtherFence = !inShell;
      if (inShell && !sections.includes(section)) sections.push(section);
    } else if (raw.startsWith('## ')) section = { title: raw.slice(3).trim(), commands: [] };
  });
  return sections;
}

/** Adds one line of a shell block; returns the command a backslash continues, if any. */
function addLine(section: Section, pending: ShownCommand | undefined, raw: string, line: number) {
  if (pending) {
    pending.text += `\n${raw}`;
    return raw.endsWith('\\') ? pending : undefined;
  }
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('#')) {
    const shown = /^# ([{[].*)$/.exec(trimmed)?.[1];
    const last = section.commands.at(-1);
    if (shown && last) last.shownOutput = shown;
    return undefined;
  }
  const command: ShownCommand = { text: raw, line };
  section.commands.push(command);
  return raw.endsWith('\\') ? command : undefined;
}
