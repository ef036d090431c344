// Makes sure the browsers of the browser tests exist: Debian's packages (Chromium for every spec,
// Firefox ESR for firefox.spec.ts), installed with apt-get when missing and we may (root);
// otherwise says exactly what to install. No browser downloads here.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Each browser: where the tests look for it, the variable that moves it, its Debian package. */
const browsers = [
  { name: 'Chromium', variable: 'LMTAB_BROWSER', path: '/usr/bin/chromium', pkg: 'chromium' },
  {
    name: 'Firefox ESR',
    variable: 'LMTAB_FIREFOX',
    path: '/usr/bin/firefox-esr',
    pkg: 'firefox-esr',
  },
];

const missing = () =>
  browsers.filter(({ variable, path }) => !existsSync(process.env[variable] ?? path));

let absent = missing();
if (absent.length === 0) process.exit(0);

const isRoot = process.getuid?.() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
const installable = absent.filter(({ variable }) => process.env[variable] === undefined);
if (installable.length > 0 && isRoot && hasApt) {
  const names = installable.map(({ pkg }) => pkg);
  process.stdout.write(
    `Missing browsers: installing Debian's ${names.join(' and ')} with apt-get...\n`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-q', ...names], { stdio: 'inherit', env });
  absent = missing();
  if (absent.length === 0) process.exit(0);
}
for (const { name, variable, path, pkg } of absent) {
  process.stderr.write(
    `The browser tests need ${name} at ${process.env[variable] ?? path}, and it is not there.\n` +
      (hasApt ? `Install it with: sudo apt-get install ${pkg}\n` : `Install ${name}, then `) +
      `or set ${variable} to the path of its binary.\n`,
  );
}
process.exit(1);
