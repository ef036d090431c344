/**
 * Says how long ago (or from now) a time is, as Ollama's `list` and `ps` do: `Less than a second
 * ago`, `About a minute ago`, `2 minutes ago`, `3 hours ago`, `2 weeks ago`, `4 minutes from
 * now`, and `Forever` beyond 20 years ahead (a model kept loaded for good).
 */
export function formatRelativeTime(at: number, now: number): string {
  const ms = now - at;
  if (ms / 3_600_000 / 24 / 365 < -20) return 'Forever';
  const span = humanDuration(Math.abs(ms));
  return ms >= 0 ? `${span} ago` : `${span} from now`;
}

/** Ollama's format.humanDuration (from docker/go-units). */
function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(seconds / 60);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(ms / 3_600_000);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(hours / 24 / 365)} years`;
}
