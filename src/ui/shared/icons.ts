import { html, svg, type SVGTemplateResult, type TemplateResult } from 'lit';

/** Draws a 24-unit stroked icon; decorative, so hidden from assistive technology. */
function icon(paths: SVGTemplateResult): TemplateResult {
  return html`<svg
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
    stroke-linecap="round"
    stroke-linejoin="round"
    aria-hidden="true"
    focusable="false"
  >
    ${paths}
  </svg>`;
}

/** The app's icons (Lucide-style outlines drawn inline, so nothing is fetched). */
export const icons = {
  chat: icon(svg`<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12Z" />`),
  developer: icon(
    svg`<path d="m8 9-3 3 3 3" /><path d="m16 9 3 3-3 3" /><path d="m13.5 6-3 12" />`,
  ),
  models: icon(
    svg`<path d="M21 8 12 3 3 8v8l9 5 9-5V8Z" /><path d="m3 8 9 5 9-5" /><path d="M12 13v8" />`,
  ),
  discover: icon(svg`<circle cx="11" cy="11" r="7" /><path d="m20 20-3.5-3.5" />`),
  plus: icon(svg`<path d="M12 5v14" /><path d="M5 12h14" />`),
  trash: icon(svg`<path d="M4 7h16" /><path d="M10 11v6" /><path d="M14 11v6" /><path
        d="M6 7l1 13h10l1-13"
      /><path d="M9 7V4h6v3" />`),
  pencil: icon(svg`<path d="M4 20h4L19 9l-4-4L4 16v4Z" /><path d="m13.5 6.5 4 4" />`),
  copy: icon(svg`<rect x="9" y="9" width="11" height="11" rx="2" /><path
        d="M5 15V6a2 2 0 0 1 2-2h8"
      />`),
  check: icon(svg`<path d="m5 12 5 5 9-10" />`),
  refresh: icon(svg`<path d="M20 11a8 8 0 0 0-14.7-4.4L4 8" /><path d="M4 4v4h4" /><path
        d="M4 13a8 8 0 0 0 14.7 4.4L20 16"
      /><path d="M20 20v-4h-4" />`),
  stop: icon(svg`<rect x="6" y="6" width="12" height="12" rx="2" />`),
  mic: icon(
    svg`<rect x="9" y="3" width="6" height="11" rx="3" /><path d="M5 11a7 7 0 0 0 14 0" /><path d="M12 18v3" />`,
  ),
  send: icon(svg`<path d="M12 19V5" /><path d="m5 12 7-7 7 7" />`),
  /** A voice conversation: sound waves. */
  voice: icon(
    svg`<path d="M4 10v4" /><path d="M8 6v12" /><path d="M12 3v18" /><path d="M16 7v10" /><path d="M20 10v4" />`,
  ),
  image:
    icon(svg`<rect x="3" y="4" width="18" height="16" rx="2" /><circle cx="9" cy="10" r="2" /><path
        d="m21 16-5-5-9 9"
      />`),
  link: icon(svg`<path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1" /><path
        d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1"
      />`),
  close: icon(svg`<path d="M6 6l12 12" /><path d="M18 6 6 18" />`),
  sliders: icon(svg`<path d="M4 6h10" /><path d="M18 6h2" /><circle cx="16" cy="6" r="2" /><path
        d="M4 12h4"
      /><path d="M12 12h8" /><circle cx="10" cy="12" r="2" /><path d="M4 18h12" /><path
        d="M20 18h0"
      /><circle cx="18" cy="18" r="2" />`),
  list: icon(svg`<path d="M4 6h16" /><path d="M4 12h16" /><path d="M4 18h10" />`),
  eject: icon(svg`<path d="M12 5 5 13h14l-7-8Z" /><path d="M5 18h14" />`),
  play: icon(svg`<path d="M7 5v14l12-7L7 5Z" />`),
  upload: icon(svg`<path d="M12 15V4" /><path d="m7 9 5-5 5 5" /><path d="M5 20h14" />`),
  download: icon(svg`<path d="M12 4v11" /><path d="m7 10 5 5 5-5" /><path d="M5 20h14" />`),
  heart: icon(
    svg`<path d="M12 20s-7-4.4-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.6-7 10-7 10Z" />`,
  ),
  clock: icon(svg`<circle cx="12" cy="12" r="8" /><path d="M12 8v4l3 2" />`),
  alert: icon(svg`<path d="M12 3 2 20h20L12 3Z" /><path d="M12 10v4" /><path d="M12 17h.01" />`),
  chip: icon(
    svg`<rect x="6" y="6" width="12" height="12" rx="2" /><path d="M9 2v4M15 2v4M9 18v4M15 18v4M2 9h4M2 15h4M18 9h4M18 15h4" />`,
  ),
  eye: icon(
    svg`<path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12Z" /><circle cx="12" cy="12" r="3" />`,
  ),
};
