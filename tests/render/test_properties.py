"""Property tests: any answer splits into valid, fitting parts without losing text."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.telegram.render import render_answer, utf16_len
from bot.telegram.render.blocks import markdown_to_spans
from tests.render.telegram_html import check_html, squash

LETTERS = list("abcxyzQW") + list("абвгдеёжзийклмнопрстуфхцчшщъыьэюяЖЯ") + list("0123456789")
EMOJI = ["😀", "🎉", "👍🏽", "🇷🇺", "👨\u200d👩\u200d👧", "✅"]
SYMBOLS = list("<>&!?,'\"-")
URLS = [
    "https://example.com/a?b=1&c=2",
    "http://пример.рф/путь",
    "javascript:alert(1)",
    "docs/файл.txt",
    "tg://resolve?domain=bot",
    "mailto:a@b.c",
    "https://e.com/" + "x" * 300,
]
LANGUAGES = ["python", "js", "c++", "", "bad lang", '"><x']

words = st.lists(st.sampled_from(LETTERS + EMOJI + SYMBOLS), min_size=1, max_size=10).map("".join)
long_words = st.integers(min_value=100, max_value=2500).map(
    lambda n: "".join(LETTERS[i % len(LETTERS)] for i in range(n))
)
code_text = (
    st.lists(st.sampled_from(LETTERS + EMOJI + list("<>&*_[]#|~ \\")), min_size=1, max_size=20)
    .map("".join)
    .filter(lambda text: text.strip() == text and text != "")
)
Fragment = tuple[str, list[str]]


@st.composite
def inline(draw: st.DrawFn) -> Fragment:
    """A run of inline Markdown with the words a reader must still see."""
    pieces: list[str] = []
    seen: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(
            st.sampled_from(["word", "word", "strong", "em", "del", "code", "link", "img"])
        )
        text = " ".join(draw(st.lists(words, min_size=1, max_size=4)))
        if kind == "code":
            code = draw(code_text)
            pieces.append(f"`{code}`")
        elif kind in ("link", "img"):
            pieces.append(f"{'!' if kind == 'img' else ''}[{text}]({draw(st.sampled_from(URLS))})")
            seen.append(text)
        else:
            mark = {"word": "", "strong": "**", "em": "*", "del": "~~"}[kind]
            pieces.append(f"{mark}{text}{mark}")
            seen.append(text)
    return " ".join(pieces), seen


@st.composite
def paragraph(draw: st.DrawFn) -> Fragment:
    lines = draw(st.lists(inline(), min_size=1, max_size=4))
    return "\n".join(text for text, _ in lines), [w for _, seen in lines for w in seen]


@st.composite
def heading(draw: st.DrawFn) -> Fragment:
    text, seen = draw(inline())
    return f"{'#' * draw(st.integers(1, 6))} {text}", seen


@st.composite
def quote(draw: st.DrawFn, depth: int) -> Fragment:
    text, seen = draw(block(depth + 1)) if depth < 2 else draw(inline())
    return "\n".join("> " + line for line in text.split("\n")), seen


@st.composite
def fence(draw: st.DrawFn) -> Fragment:
    lines = draw(st.lists(code_text, min_size=1, max_size=25))
    language = draw(st.sampled_from(LANGUAGES))
    return f"```{language}\n" + "\n".join(lines) + "\n```", lines


@st.composite
def table(draw: st.DrawFn) -> Fragment:
    columns = draw(st.integers(1, 4))
    rows = draw(
        st.lists(st.lists(words, min_size=columns, max_size=columns), min_size=2, max_size=8)
    )
    lines = [f"| {' | '.join(rows[0])} |", "|" + "---|" * columns]
    lines.extend(f"| {' | '.join(row)} |" for row in rows[1:])
    return "\n".join(lines), [cell for row in rows for cell in row]


def block(depth: int = 0) -> st.SearchStrategy[Fragment]:
    return st.one_of(
        paragraph(),
        paragraph(),
        heading(),
        list_block(depth),
        quote(depth),
        fence(),
        table(),
        long_words.map(lambda word: (word, [word])),
    )


@st.composite
def list_block(draw: st.DrawFn, depth: int) -> Fragment:
    ordered = draw(st.booleans())
    lines: list[str] = []
    seen: list[str] = []
    for number in range(1, draw(st.integers(1, 5)) + 1):
        text, item_seen = draw(inline())
        marker = f"{number}. " if ordered else "- "
        lines.append(marker + text)
        seen.extend(item_seen)
        if depth < 2 and draw(st.booleans()):
            nested, nested_seen = draw(list_block(depth + 1))
            lines.extend(" " * len(marker) + line for line in nested.split("\n"))
            seen.extend(nested_seen)
    return "\n".join(lines), seen


@st.composite
def documents(draw: st.DrawFn) -> Fragment:
    blocks = draw(st.lists(block(), min_size=1, max_size=6))
    return "\n\n".join(text for text, _ in blocks), [w for _, seen in blocks for w in seen]


markdownish = st.lists(
    st.sampled_from(
        LETTERS + EMOJI + list("*_`[]()#>-|~!<&\\:/ \n\n\n") + ["```", "http://e.com", "**"]
    ),
    max_size=400,
).map("".join)
limits = st.sampled_from([64, 150, 500, 4096])
PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def assert_parts_sound(markdown: str, limit: int) -> str:
    """Check limits, markup and completeness of the parts; return their joined plain text."""
    parts = render_answer(markdown, limit=limit)
    if not markdown.strip():
        assert parts == []
        return ""
    assert parts
    spans = markdown_to_spans(markdown, max_href=limit // 4)
    visible = "".join(span.text for span in spans)
    plain = "".join(span.text + span.note for span in spans)
    if not visible.strip():
        visible = plain = markdown.strip()
    shown: list[str] = []
    for part in parts:
        assert utf16_len(part.html) <= limit
        assert utf16_len(part.plain) <= limit
        shown.append(check_html(part.html))
        assert shown[-1].strip()
    assert squash("".join(shown)) == squash(visible)
    joined_plain = "".join(part.plain for part in parts)
    assert squash(joined_plain) == squash(plain)
    return joined_plain


class TestProperties:
    @PROPERTY_SETTINGS
    @given(document=documents(), limit=limits)
    def test_structured_answers(self, document: Fragment, limit: int) -> None:
        markdown, seen = document
        joined = squash(assert_parts_sound(markdown, limit))
        for text in seen:
            for word in re.findall(r"\w+", text):
                assert word in joined, (word, markdown)

    @PROPERTY_SETTINGS
    @given(markdown=markdownish, limit=limits)
    def test_arbitrary_markdownish_text(self, markdown: str, limit: int) -> None:
        assert_parts_sound(markdown, limit)
