// Makes sure a Chromium for the browser tests exists: Debian's package, installed with apt when
// missing and we may (root); otherwise says exactly what to install. No browser downloads here.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const wanted = process.env.LMTAB_BROWSER ?? '/usr/bin/chromium';
if (existsSync(wanted)) process.exit(0);

const isRoot = process.getuid?.() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (!process.env.LMTAB_BROWSER && isRoot && hasApt) {
  process.stdout.write(
    "Chromium is missing: installing Debian's chromium package with apt-get...\n",
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-q', 'chromium'], { stdio: 'inherit', env });
  if (existsSync(wanted)) process.exit(0);
}
process.stderr.write(
  `The browser tests need Chromium at ${wanted}, and it is not there.\n` +
    (hasApt ? 'Install it with: sudo apt-get install chromium\n' : 'Install Chromium, then ') +
    'or set LMTAB_BROWSER to the path of a Chrome or Chromium binary.\n',
);
process.exit(1);
