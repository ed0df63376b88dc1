"""The review report as blocks (headings, paragraphs, tables, code, pictures, foldable details) and
its two renderings: one self-contained HTML file (style inline, pictures as data: URIs, nothing
fetched) and Markdown for a pull request (pictures as files beside it, or left out).

Text in blocks is plain; a span in backticks is code and ``**text**`` is bold (HTML tags in HTML,
kept as they are in Markdown).
Pure: no pandas, no matplotlib; pictures arrive as PNG bytes.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

__all__ = ["Block", "Code", "Details", "Heading", "Image", "Items", "Para", "TableBlock", "to_html", "to_markdown"]


@dataclass
class Heading:
    """A heading of ``level`` 1-6; ``anchor`` is the id a link to it uses (none when empty)."""

    level: int
    text: str
    anchor: str = ""


@dataclass
class Para:
    """A paragraph; ``kind`` makes it a coloured banner in HTML (a quote in Markdown)."""

    text: str
    kind: str = ""            # "", ok, bad, warn, muted: the banner colours in HTML; a quote in Markdown


@dataclass
class Items:
    """A bulleted list, one text per item."""

    items: list[str]


@dataclass
class TableBlock:
    """A report table: column names, rows of cell texts, the right-aligned columns, a caption."""

    columns: list[str]
    rows: list[list[str]]
    numeric: tuple[int, ...] = ()        # column positions aligned right
    caption: str = ""


@dataclass
class Code:
    """A code block in language ``lang`` (none when empty)."""

    text: str
    lang: str = ""


@dataclass
class Image:
    """A picture as PNG bytes: inline in HTML; in Markdown a file named after ``name``, or left out."""

    name: str                 # file stem: heat_table_rcu
    title: str
    caption: str
    png: bytes


@dataclass
class Details:
    """Blocks folded under a summary line (``<details>`` in both renderings)."""

    summary: str
    blocks: list = field(default_factory=list)


Block = Heading | Para | Items | TableBlock | Code | Image | Details

_TICKS = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK JP",sans-serif;margin:0;color:#1d232a;
background:#fff;line-height:1.45}
main{max-width:1180px;margin:0 auto;padding:24px 32px 64px}
h1{font-size:1.7em;margin:.2em 0 .1em}h2{font-size:1.3em;margin:1.8em 0 .5em;padding-bottom:.2em;
border-bottom:1px solid #d8dee4}h3{font-size:1.05em;margin:1.3em 0 .4em}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Noto Sans Mono",monospace;font-size:.86em}
code{background:#f3f5f7;padding:0 .25em;border-radius:3px}
pre{background:#f6f8fa;border:1px solid #e1e4e8;border-radius:6px;padding:10px 12px;overflow-x:auto}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.9em}
th,td{border:1px solid #d8dee4;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f7}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{caption-side:bottom;text-align:left;color:#57606a;font-size:.9em;padding-top:4px}
.banner{padding:10px 14px;border-radius:6px;margin:.6em 0;font-weight:600}
.ok{background:#dafbe1;border:1px solid #4ac26b}.bad{background:#ffebe9;border:1px solid #ff8182}
.warn{background:#fff8c5;border:1px solid #d4a72c}.muted{color:#57606a;font-size:.92em}
figure{margin:1em 0 1.6em}figure img{max-width:100%;height:auto;border:1px solid #e1e4e8}
figcaption{color:#57606a;font-size:.9em}details{margin:.3em 0}summary{cursor:pointer}
nav ul{columns:2;padding-left:1.2em}
"""


def _plain_html(text: str) -> str:
    return _BOLD.sub(lambda m: f"<b>{m.group(1)}</b>", html.escape(text))


def _inline_html(text: str) -> str:
    """Plain text to HTML: `code` spans and **bold**, everything else escaped."""
    parts = _TICKS.split(text)
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else _plain_html(p) for i, p in enumerate(parts))


def _html_block(b) -> list[str]:
    if isinstance(b, Heading):
        anchor = f' id="{html.escape(b.anchor)}"' if b.anchor else ""
        return [f"<h{b.level}{anchor}>{_inline_html(b.text)}</h{b.level}>"]
    if isinstance(b, Para):
        cls = {"ok": "banner ok", "bad": "banner bad", "warn": "banner warn", "muted": "muted"}.get(b.kind, "")
        return [f'<p class="{cls}">{_inline_html(b.text)}</p>' if cls else f"<p>{_inline_html(b.text)}</p>"]
    if isinstance(b, Items):
        return ["<ul>", *[f"<li>{_inline_html(i)}</li>" for i in b.items], "</ul>"]
    if isinstance(b, TableBlock):
        def cell(tag: str, i: int, v: str) -> str:
            return f'<{tag} class="n">{_inline_html(v)}</{tag}>' if i in b.numeric else f"<{tag}>{_inline_html(v)}</{tag}>"
        out = ["<table>"]
        if b.caption:
            out.append(f"<caption>{_inline_html(b.caption)}</caption>")
        out.append("<thead><tr>" + "".join(cell("th", i, c) for i, c in enumerate(b.columns)) + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(cell("td", i, v) for i, v in enumerate(r)) + "</tr>" for r in b.rows]
        return [*out, "</tbody></table>"]
    if isinstance(b, Code):
        return [f"<pre><code>{html.escape(b.text)}</code></pre>"]
    if isinstance(b, Image):
        data = base64.b64encode(b.png).decode("ascii")
        return [f'<figure id="fig-{html.escape(b.name)}"><img alt="{html.escape(b.title)}" '
                f'src="data:image/png;base64,{data}"><figcaption><b>{html.escape(b.title)}.</b> '
                f"{_inline_html(b.caption)}</figcaption></figure>"]
    if isinstance(b, Details):
        inner = [line for x in b.blocks for line in _html_block(x)]
        return [f"<details><summary>{_inline_html(b.summary)}</summary>", *inner, "</details>"]
    raise TypeError(f"not a report block: {b!r}")


def to_html(title: str, blocks: list, *, comment: str = "") -> str:
    """One HTML5 document: no script, no external style, font or picture."""
    head = (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n")
    note = f"<!-- {comment.replace('--', '- -')} -->\n" if comment else ""
    body = [line for b in blocks for line in _html_block(b)]
    return head + note + "<body>\n<main>\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n"


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_block(b, figure_dir: str | None) -> list[str]:
    if isinstance(b, Heading):
        anchor = f'<a id="{b.anchor}"></a>\n' if b.anchor and b.level > 1 else ""
        return [f"{anchor}{'#' * b.level} {b.text}", ""]
    if isinstance(b, Para):
        prefix = {"ok": "> **", "bad": "> **", "warn": "> **"}.get(b.kind)
        if prefix:
            return [f"{prefix}{b.text}**", ""]
        return [f"*{b.text}*" if b.kind == "muted" else b.text, ""]
    if isinstance(b, Items):
        return [*[f"- {i}" for i in b.items], ""]
    if isinstance(b, TableBlock):
        align = ["---:" if i in b.numeric else ":---" for i in range(len(b.columns))]
        out = ["| " + " | ".join(_md_cell(c) for c in b.columns) + " |", "| " + " | ".join(align) + " |"]
        out += ["| " + " | ".join(_md_cell(v) for v in r) + " |" for r in b.rows]
        return [*out, *(["", f"*{b.caption}*"] if b.caption else []), ""]
    if isinstance(b, Code):
        fence = "````" if "```" in b.text else "```"
        return [f"{fence}{b.lang}", b.text, fence, ""]
    if isinstance(b, Image):
        if figure_dir is None:
            return [f"*{b.title}: in the HTML report (`--format report-html`).*", ""]
        return [f"![{b.title}]({figure_dir}/{b.name}.png)", "", f"*{b.title}.* {b.caption}", ""]
    if isinstance(b, Details):
        inner = [line for x in b.blocks for line in _md_block(x, figure_dir)]
        return ["<details>", f"<summary>{html.escape(b.summary)}</summary>", "", *inner, "</details>", ""]
    raise TypeError(f"not a report block: {b!r}")


def to_markdown(blocks: list, *, figure_dir: str | None = None, comment: str = "") -> str:
    """GitHub-flavoured Markdown; pictures link to ``figure_dir/<name>.png`` (None: a note instead)."""
    lines = [f"<!-- {comment.replace('--', '- -')} -->", ""] if comment else []
    for b in blocks:
        lines += _md_block(b, figure_dir)
    return "\n".join(lines).rstrip() + "\n"
