export {
  createLanguageModelClass,
  installLanguageModel,
  DownloadProgressEvent,
} from './language-model.js';
export type {
  Availability,
  LanguageModelBackend,
  LanguageModelClass,
  LanguageModelCreateOptions,
  LanguageModelMessage,
  LanguageModelPrompt,
  LanguageModelPromptOptions,
} from './language-model.js';
