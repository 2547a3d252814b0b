// HTML escaping for every page and mail Gatehouse renders (login/render.ts, mail/messages.ts).
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
  '=': '&#61;',
};

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`=]/g, (c) => ESCAPES[c]!);
}
