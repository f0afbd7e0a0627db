"""The README as a front page and the guide in docs/ as a site that keeps up with the code.

MkDocs checks the rest when CI builds the site with `--strict`: a link to a missing page or
heading, or a page left out of the navigation, is a warning there and fails the build.
"""

from __future__ import annotations

import re
import tomllib

from tests import docs_text

RUN_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/python -m bot"
README_MAX_LINES = 250
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _command_after(text: str, label: str) -> str:
    """The first line of the code block that follows `label`."""
    after = text[text.index(label) :]
    block = re.search(r"```sh\n(.+?)\n```", after, flags=re.DOTALL)
    assert block is not None, label
    return block.group(1).splitlines()[0]


def _slug(heading: str) -> str:
    """A heading's anchor as MkDocs makes it (lower case, punctuation dropped, `-` for spaces)."""
    words = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s-]+", "-", words).strip("-")


def _anchors(markdown: str) -> set[str]:
    without_code = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", without_code, flags=re.MULTILINE)}


class TestReadme:
    def test_is_a_front_page(self) -> None:
        assert len(docs_text.readme().splitlines()) <= README_MAX_LINES

    def test_has_the_two_commands(self) -> None:
        readme = docs_text.readme()
        assert _command_after(readme, "**Install and run the bot:**") == RUN_COMMAND
        test_command = _command_after(readme, "**Install and run the tests:**")
        assert test_command.startswith(
            "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && "
        )
        assert ".venv/bin/python -m pytest" in test_command

    def test_the_docs_home_shows_the_same_commands(self) -> None:
        readme, home = docs_text.readme(), docs_text.source("index.md")
        for label in ("**Install and run the bot:**", "**Install and run the tests:**"):
            assert _command_after(home, label) == _command_after(readme, label)

    def test_links_lead_to_pages_and_headings_that_exist(self) -> None:
        links = [link for link in _LINK.findall(docs_text.readme()) if not link.startswith("http")]
        assert links
        for link in links:
            path, _, anchor = link.partition("#")
            assert (docs_text.ROOT / path).is_file(), link
            if anchor:
                assert anchor in _anchors((docs_text.ROOT / path).read_text("utf-8")), link

    def test_points_to_the_reference_pages(self) -> None:
        links = set(_LINK.findall(docs_text.readme()))
        for wanted in ("docs/configuration.md", "docs/dependencies.md", "docs/troubleshooting.md"):
            assert wanted in links, wanted


class TestSite:
    def test_every_page_is_in_the_navigation(self) -> None:
        config = (docs_text.ROOT / "mkdocs.yml").read_text(encoding="utf-8")
        in_nav = set(re.findall(r"^\s+- [^:\n]+: ([\w/.-]+\.md)$", config, flags=re.MULTILINE))
        assert in_nav == set(docs_text.page_names())

    def test_troubleshooting_keeps_its_table_of_error_lines(self) -> None:
        troubleshooting = docs_text.source("troubleshooting.md")
        assert "## Error lines and what to do" in troubleshooting
        assert "| the error line an admin sees | what to do |" in troubleshooting

    def test_every_dependency_is_explained(self) -> None:
        project = tomllib.loads((docs_text.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        wanted = list(project["project"]["dependencies"])
        for extra in project["project"]["optional-dependencies"].values():
            wanted += extra
        explained = docs_text.source("dependencies.md").lower()
        for requirement in wanted:
            name = re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower()
            assert name in explained, name
