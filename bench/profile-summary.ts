// Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof`): self time by function and by package, so a
// performance note can say what bounds a scenario.
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfTime = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);

const packageOf = (url: string) => {
  if (!url) return '(native / idle / gc)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return 'node core';
  const src = /\/(src\/[^/]+)\//.exec(url);
  return src ? `gatehouse ${src[1]}` : url;
};
const functions = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, t] of selfTime) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/src\//, 'src/');
  const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + t);
  packages.set(packageOf(url), (packages.get(packageOf(url)) ?? 0) + t);
}
const print = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title} (self time, % of ${Math.round(total / 1000)} ms)\n`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}\n`);
};
print('by package', packages);
print('by function', functions);
