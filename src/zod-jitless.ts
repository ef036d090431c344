// zod compiles its object parsers with `new Function` where it may, and finds out with a probe
// (`new Function("")` in a try) at the first parse. lmtab's page, engine worker and service worker
// run under a Content-Security-Policy without 'unsafe-eval': the probe is refused, which Chromium
// passes over in silence and Firefox reports as an uncaught error of the page, at every load. So
// lmtab parses without the compiler, everywhere (in Node too: one behaviour to test). Imported for
// its effect by the modules that parse with zod (src/api's wire parser, the hub client), so the
// setting is made when the module graph loads, before any parse.
import { config } from 'zod';

config({ jitless: true });
