/**
 * The smallest useful HTML toolkit: escaping and a page shell. The dashboard issue brings the
 * full set of pages; until then this keeps every interpolated value escaped in one place.
 */
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A tagged template whose interpolations are escaped unless they are already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const parts = Array.isArray(value) ? value : [value];
    for (const part of parts) {
      if (part === null || part === undefined || part === false) continue;
      out += part instanceof Html ? part.value : escapeHtml(String(part));
    }
    out += strings[i + 1] ?? '';
  });
  return new Html(out);
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
main{max-width:980px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 8px}
.meta{color:#57606a;margin-bottom:16px}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;font-size:13px;color:#fff;background:#1f883d}
.badge.merged{background:#8250df}.badge.closed{background:#cf222e}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:16px 0;overflow:hidden}
section h2{font-size:14px;margin:0;padding:8px 12px;background:#f6f8fa;border-bottom:1px solid #d0d7de}
.body{padding:12px;white-space:pre-wrap}
ul.commits{margin:0;padding:8px 12px 8px 32px}
pre.diff{margin:0;padding:8px 0;overflow-x:auto;font:12px/1.45 ui-monospace,monospace}
pre.diff span{display:block;padding:0 12px;white-space:pre}
.add{background:#e6ffec}.del{background:#ffebe9}.hunk{color:#0969da;background:#ddf4ff}.file{font-weight:600;background:#f6f8fa}
`;

export function page(title: string, body: Html): string {
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · agentjobs</title><style>${new Html(STYLE)}</style></head><body><main>${body}</main></body></html>`}`;
}
