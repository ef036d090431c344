// The script-tag form of lmtab's `LanguageModel` (built to `/lmtab-language-model.js`):
//   <script type="module" src="/lmtab-language-model.js?model=lfm2-350m"></script>
// puts Chrome's Prompt API on `window` where the browser has none, answered by lmtab at the
// script's own origin (the app's service worker, or a relay's URL the script was loaded from).
// `&force=1` replaces a browser's own; `&base=URL` sends the requests elsewhere; `&max_tokens=N`
// bounds each answer.
import { installLanguageModel } from './language-model.js';

const script = new URL(import.meta.url);
const model = script.searchParams.get('model');
if (model === null || model === '') {
  console.error('lmtab-language-model.js: expected ?model=NAME (a stored model) in its URL');
} else {
  const maxTokens = Number(script.searchParams.get('max_tokens') ?? NaN);
  const installed = installLanguageModel(
    {
      baseUrl: script.searchParams.get('base') ?? script.origin,
      model,
      ...(Number.isInteger(maxTokens) && maxTokens > 0 ? { maxTokens } : {}),
    },
    script.searchParams.get('force') === '1',
  );
  document.documentElement.dataset.lmtabLanguageModel = installed ? model : 'native';
}
